"""docker-compose.yml's profile "cluster": six Redis nodes (three masters, three replicas), the step that joins them,
and workers and a producer on the cluster client; checked as the default stack is
(tests/deploy/test_deploy_compose.py resolves and validates the whole file), then run without containers: the nodes
with the services' own arguments and files on loopback, the create step's own command (valkey-cli as redis-cli), the
workers and the producer with their own environment, until the demo hands are settled with no ACL denial on any
node."""

from __future__ import annotations

import hashlib
import ipaddress
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest

from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect_cluster
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalCluster
from tests.deploy.test_deploy_compose import (
    EXAMPLE_COUNT,
    clean_env,
    container_to_host,
    host_command,
    load_compose,
    resolve,
    volume_parts,
    with_cli_of,
)
from tests.helpers import REPO
from tests.ops.test_acl import wait_for

NODES = [f"redis-node-{i}" for i in range(1, 7)]
CLUSTER_ACL_FILE = REPO / "deploy" / "redis" / "users-cluster.acl"
COMPOSE_CLUSTER_ACL = REPO / "deploy" / "compose" / "cluster-users.acl"
CLUSTER_CONF = REPO / "deploy" / "redis" / "cluster.conf"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return resolve(load_compose(), REPO, clean_env())


def node_ip(compose: dict[str, Any], node: str) -> str:
    return str(compose["services"][node]["networks"]["cluster"]["ipv4_address"])


def acl_lines(path: Path) -> dict[str, str]:
    return {line.split()[1]: line for line in path.read_text(encoding="utf-8").splitlines() if line}


def secret_text(compose: dict[str, Any], name: str) -> str:
    return (REPO / str(compose["secrets"][name]["file"])).read_text(encoding="utf-8")


# --- the profile, as written --------------------------------------------------------------------------------------


def test_the_cluster_profile_runs_six_nodes_of_the_redis_image_on_the_shipped_cluster_configuration(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    profiled = {name for name, spec in services.items() if spec.get("profiles") == ["cluster"]}
    assert profiled == {*NODES, "redis-cluster-create", "worker-cluster", "producer-cluster"}
    subnet = ipaddress.ip_network(compose["networks"]["cluster"]["ipam"]["config"][0]["subnet"])
    assert len({node_ip(compose, node) for node in NODES}) == len(NODES)
    data_volumes = set()
    for node in NODES:
        spec = services[node]
        assert spec["image"] == services["redis"]["image"], "the same pinned Redis as the single node"
        assert ipaddress.ip_address(node_ip(compose, node)) in subnet
        mounts = {target: source for source, target, *_ in map(volume_parts, spec["volumes"])}
        assert mounts["/usr/local/etc/redis/cluster.conf"] == f"./{CLUSTER_CONF.relative_to(REPO)}"
        assert mounts["/usr/local/etc/redis/users.acl"] == f"./{COMPOSE_CLUSTER_ACL.relative_to(REPO)}"
        data_volumes.add(mounts["/data"])
        script = spec["command"][2]
        assert "redis-server /usr/local/etc/redis/cluster.conf --aclfile /usr/local/etc/redis/users.acl" in script
        assert spec["secrets"] == ["replica_password"]
        assert spec["healthcheck"] == services["redis"]["healthcheck"]
        assert "ports" not in spec
    assert len(data_volumes) == len(NODES)
    assert data_volumes <= set(compose["volumes"])


def test_the_compose_cluster_acl_file_is_the_shipped_one_plus_an_admin_whose_secret_matches(
    compose: dict[str, Any],
) -> None:
    shipped = CLUSTER_ACL_FILE.read_text(encoding="utf-8")
    text = COMPOSE_CLUSTER_ACL.read_text(encoding="utf-8")
    assert text.startswith(shipped)
    (admin,) = text.removeprefix(shipped).splitlines()
    password = secret_text(compose, "cluster_admin_password")
    assert admin == f"user cluster-admin on #{hashlib.sha256(password.encode()).hexdigest()} ~* &* +@all"
    lines = acl_lines(COMPOSE_CLUSTER_ACL)
    for secret, user in (("replica_password", "replica"), ("worker_password", "worker"),
                         ("producer_password", "producer")):  # fmt: skip
        digest = hashlib.sha256(secret_text(compose, secret).strip().encode()).hexdigest()
        assert f" #{digest} " in lines[user], f"{user} cannot log in"


def test_the_create_step_joins_every_node_with_a_replica_each_once_all_are_healthy(compose: dict[str, Any]) -> None:
    create = compose["services"]["redis-cluster-create"]
    script = create["command"][0]
    addresses = re.search(r"--cluster create ((?:\S+:\d+ ?)+)", script)
    assert addresses is not None
    assert addresses[1].split() == [f"{node_ip(compose, node)}:6379" for node in NODES]
    assert "--cluster-replicas 1" in script
    assert "--cluster-yes" in script
    assert create["depends_on"] == {node: {"condition": "service_healthy"} for node in NODES}
    assert create["restart"] == "no"


@pytest.mark.parametrize("service", ["worker-cluster", "producer-cluster"])
def test_the_cluster_services_use_the_cluster_client_once_the_cluster_is_created(
    compose: dict[str, Any], service: str
) -> None:
    spec = compose["services"][service]
    assert spec["depends_on"] == {"redis-cluster-create": {"condition": "service_completed_successfully"}}
    env = spec["environment"]
    settings = Settings(redis_url=env["SHOWDOWN_REDIS_URL"], redis_cluster=env["SHOWDOWN_REDIS_CLUSTER"],
                        shards=env["SHOWDOWN_SHARDS"], wait_replicas=env["SHOWDOWN_WAIT_REPLICAS"])  # fmt: skip
    assert settings.redis_cluster is True
    assert urlsplit(settings.redis_url).hostname in {node_ip(compose, node) for node in NODES}
    assert settings.wait_replicas == 1
    assert env["SHOWDOWN_SHARDS"] == compose["services"]["worker-cluster"]["environment"]["SHOWDOWN_SHARDS"]
    assert spec["networks"] == ["cluster"]


# --- the profile, run on loopback ---------------------------------------------------------------------------------


@pytest.fixture
def nodes(compose: dict[str, Any], tmp_path: Path) -> Iterator[tuple[LocalCluster, dict[str, int]]]:
    """The six nodes, started with each service's own configuration file, ACL file and replica password (not yet
    joined): a :class:`LocalCluster` whose admin is the profile's cluster-admin."""
    spec = compose["services"][NODES[0]]
    script = spec["command"][2]
    assert script.startswith("exec docker-entrypoint.sh redis-server /usr/local/etc/redis/cluster.conf ")
    directives = [line.split(None, 1) for line in CLUSTER_CONF.read_text(encoding="utf-8").splitlines()]
    args = [arg for d in directives if d and not d[0].startswith("#") for arg in (f"--{d[0]}", d[1])]
    acl = container_to_host(compose, NODES[0], "/usr/local/etc/redis/users.acl", tmp_path)
    replica_password = secret_text(compose, "replica_password")
    args += ["--aclfile", str(acl), "--masterauth", replica_password, "--appendfsync", "everysec"]  # a laptop's disk
    admin = ("cluster-admin", secret_text(compose, "cluster_admin_password"))
    cluster = LocalCluster(masters=3, replicas=1, extra_args=args, admin=admin, appendfsync=None)
    try:
        for node in cluster.nodes:
            node.start()
        yield cluster, {name: node.port for name, node in zip(NODES, cluster.nodes, strict=True)}
    finally:
        cluster.close()


def on_loopback(compose: dict[str, Any], text: str, ports: dict[str, int]) -> str:
    for node, port in ports.items():
        text = text.replace(f"{node_ip(compose, node)}:6379", f"127.0.0.1:{port}")
        text = text.replace(f"-h {node_ip(compose, node)}", f"-h 127.0.0.1 -p {port}")
    return text


def service_env(compose: dict[str, Any], service: str, ports: dict[str, int], tmp: Path) -> dict[str, str]:
    env = clean_env()
    for key, value in compose["services"][service]["environment"].items():
        text = str(value)
        if key == "SHOWDOWN_REDIS_URL":
            text = on_loopback(compose, text, ports)
        elif text.startswith("/"):
            text = str(container_to_host(compose, service, text, tmp))
        env[key] = text
    return env


def test_the_cluster_profile_settles_the_demo_hands_on_a_real_cluster_with_no_acl_denial(
    compose: dict[str, Any], nodes: tuple[LocalCluster, dict[str, int]], tmp_path: Path
) -> None:
    cluster, ports = nodes
    cli_env = with_cli_of(cluster.nodes[0].binary, tmp_path)
    healthcheck = compose["services"][NODES[0]]["healthcheck"]["test"][1]
    for port in ports.values():
        checked = subprocess.run(["sh", "-c", healthcheck.replace("redis-cli ", f"redis-cli -p {port} ")],
                                 env=cli_env, capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr

    create = compose["services"]["redis-cluster-create"]
    script = on_loopback(compose, create["command"][0], ports)
    secret = container_to_host(compose, "redis-cluster-create", "/run/secrets/cluster_admin_password", tmp_path)
    script = script.replace("/run/secrets/cluster_admin_password", str(secret))
    for attempt in ("create", "again: already created, a no-op"):
        made = subprocess.run(["sh", "-c", script], env=cli_env, capture_output=True, text=True, timeout=120,
                              check=False)  # fmt: skip
        assert made.returncode == 0, (attempt, made.stdout, made.stderr)
        cluster.wait_healthy(60)

    worker_env = service_env(compose, "worker-cluster", ports, tmp_path)
    worker_env["SHOWDOWN_METRICS_PORT"] = "0"
    Path(worker_env["SHOWDOWN_HEARTBEAT_FILE"]).parent.mkdir(parents=True, exist_ok=True)
    worker = subprocess.Popen(host_command(compose["services"]["worker-cluster"]["command"]), env=worker_env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        producer = compose["services"]["producer-cluster"]
        published = subprocess.run(host_command(producer["command"]),
                                   env=service_env(compose, "producer-cluster", ports, tmp_path),
                                   capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
        assert published.returncode == 0, published.stderr
        assert f"published {EXAMPLE_COUNT} events" in published.stdout
        settings = Settings(shards=worker_env["SHOWDOWN_SHARDS"])
        assert cluster.admin is not None
        username, password = cluster.admin
        admin = connect_cluster(cluster.url, username=username, password=password, protocol=2, driver_info=None)

        def audited() -> int:
            keys = [settings.keys(shard).audit for shard in settings.shards]
            return sum(int(admin.xlen(key)) for key in keys if admin.exists(key))

        wait_for(lambda: audited() == EXAMPLE_COUNT, "every demo hand settled on the cluster", timeout=120)
        health = subprocess.run(host_command(compose["services"]["worker-cluster"]["healthcheck"]["test"][1:]),
                                env=worker_env, capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert health.returncode == 0, health.stderr
        settled = [
            orjson.loads(f[b"result"]) for s in settings.shards for _, f in read_range(admin, settings.keys(s).results)
        ]
        assert len(settled) == EXAMPLE_COUNT
        admin.close()
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
    for node in cluster.running():
        with cluster.client(node) as c:
            assert not c.acl_log(), f"ACL denials on port {node.port}: {c.acl_log()}"
        with cluster.client(node) as c:
            if c.info("replication")["role"] == "master":
                assert [x["user"] for x in c.client_list() if "S" in x["flags"]] == ["replica"]
