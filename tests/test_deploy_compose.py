"""docker-compose.yml: valid against the compose specification, consistent with the image, the ACL file
and the settings, and, short of containers, run for real: the same Redis arguments, ACL file, secrets,
environment and commands, on 127.0.0.1."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from showdown_service.config import Settings
from showdown_service.localredis import free_port
from tests.helpers import REPO
from tests.test_acl import ACL_FILE, KEYS, AclRedis, AclServer, wait_for, with_admin

COMPOSE_FILE = REPO / "docker-compose.yml"
ENTRYPOINT = REPO / "deploy" / "docker-entrypoint.sh"
PROMETHEUS_FILE = REPO / "deploy" / "prometheus" / "prometheus.yml"
SETTINGS_ENV = {f"SHOWDOWN_{name.upper()}" for name in Settings.model_fields}
ENTRYPOINT_ENV = {"SHOWDOWN_REDIS_PASSWORD_FILE"}
"""Read by deploy/docker-entrypoint.sh, not by Settings."""
SHOWDOWN_SERVICES = {"worker": "worker", "producer": "producer", "reader": "reader", "auditor": "auditor",
                     "operator": "operator"}  # fmt: skip
"""Services running the showdown image, and the ACL user each logs in as."""
EXAMPLE_COUNT = 300


def load_compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    return document


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return load_compose()


def interpolate(value: str) -> str:
    """Compose's ``${VAR:-default}`` with no such variable set (what a fresh checkout runs with)."""
    return re.sub(r"\$\{[A-Z0-9_]+:-([^}]*)\}", r"\1", value)


def volume_parts(volume: str) -> list[str]:
    """``source:target[:mode]`` of a short-syntax volume, after interpolation."""
    return interpolate(volume).split(":")


def seconds(duration: str) -> float:
    """A compose duration such as ``30s``, ``1m30s`` or ``500ms``."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", duration)
    assert parts, duration
    assert "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * units[u] for n, u in parts)


def acl_line(user: str) -> str:
    return next(line for line in ACL_FILE.read_text(encoding="utf-8").splitlines() if line.split()[1] == user)


def tool(name: str) -> str:
    """A console script of this virtualenv (check-jsonschema)."""
    path = Path(sys.executable).parent / name
    assert path.exists(), f"{name} is not installed: pip install -e '.[dev]'"
    return str(path)


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("SHOWDOWN_", "COMPOSE_", "DOCKER_"))}


# --- the specification, and docker-compose's own reading --------------------------------------------------


def test_the_compose_file_matches_the_compose_specification(tmp_path: Path) -> None:
    check = [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec"]
    result = subprocess.run([*check, str(COMPOSE_FILE)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    broken = load_compose()
    broken["services"]["worker"]["deploy"]["replicas"] = "two"
    broken["services"]["worker"]["stop_grace_period"] = ["30s"]
    wrong = tmp_path / "docker-compose.yml"
    wrong.write_text(yaml.safe_dump(broken), encoding="utf-8")
    refused = subprocess.run([*check, str(wrong)], capture_output=True, text=True, timeout=120, check=False)
    assert refused.returncode == 1, "the schema check has teeth"


def docker_compose(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.fail("docker-compose is not installed: `apt-get install docker-compose` (.ci/run installs it)")
    return subprocess.run(
        [binary, *args], cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=120, check=False
    )


def test_docker_compose_resolves_the_file_its_paths_and_its_references(tmp_path: Path) -> None:
    resolved = docker_compose("-f", str(COMPOSE_FILE), "config", "-q", cwd=REPO)
    assert resolved.returncode == 0, resolved.stderr
    dangling = tmp_path / "docker-compose.yml"
    dangling.write_text(
        "services:\n  worker:\n    image: showdown-worker:local\n    depends_on: [redis]\n"
        "    secrets: [worker_password]\n",
        encoding="utf-8",
    )
    refused = docker_compose("-f", str(dangling), "config", "-q", cwd=tmp_path)
    assert refused.returncode != 0, "docker-compose catches a reference to nothing"


# --- the services ---------------------------------------------------------------------------------------------


def test_redis_is_a_pinned_official_7_4_or_later_image_with_aof_everysec_the_acl_file_and_a_volume(
    compose: dict[str, Any],
) -> None:
    redis = compose["services"]["redis"]
    match = re.fullmatch(r"redis:(\d+)\.(\d+)\.(\d+)(-[a-z0-9]+)?", redis["image"])
    assert match, f"pin an official redis image to a patch release, not {redis['image']!r}"
    assert (int(match[1]), int(match[2])) >= (7, 4)
    args = redis["command"]
    assert args[0] == "redis-server"
    options = dict(zip(args[1::2], args[2::2], strict=True))
    assert options["--appendonly"] == "yes"
    assert options["--appendfsync"] == "everysec"
    assert options["--maxmemory-policy"] == "noeviction", "streams and dedupe keys must never be evicted"
    mounts = {target: source for source, target, *_ in map(volume_parts, redis["volumes"])}
    assert mounts[options["--aclfile"]] == "./deploy/redis/users.acl"
    assert mounts["/data"] in compose["volumes"], "AOF on a named volume"
    assert "ports" not in redis, "Redis is reached on the compose network only"
    assert redis["healthcheck"]["test"][0] == "CMD-SHELL"


def test_two_workers_wait_for_a_healthy_redis_check_their_health_and_stop_gracefully(compose: dict[str, Any]) -> None:
    worker = compose["services"]["worker"]
    env = worker["environment"]
    assert worker["deploy"]["replicas"] == 2
    assert worker["build"] == {"context": ".", "dockerfile": "deploy/Dockerfile"}
    assert (REPO / worker["build"]["dockerfile"]).is_file()
    assert worker["depends_on"] == {"redis": {"condition": "service_healthy"}}
    assert worker["command"] == ["showdown", "worker"]
    assert worker["healthcheck"]["test"] == ["CMD", "showdown-entrypoint", "showdown", "health"]
    assert seconds(worker["healthcheck"]["interval"]) * 2 <= float(Settings().health_max_age_s)
    assert worker.get("stop_signal", "SIGTERM") == "SIGTERM"
    batch_s = int(env["SHOWDOWN_BLOCK_MS"]) / 1000  # a stop waits at most for one read, then commits
    assert seconds(worker["stop_grace_period"]) >= max(10.0, 5 * batch_s)
    assert worker["read_only"] is True
    heartbeat = Path(env["SHOWDOWN_HEARTBEAT_FILE"])
    assert any(str(heartbeat.parent) == mount.split(":")[0] for mount in worker["tmpfs"]), "heartbeat on a tmpfs"
    assert worker["cap_drop"] == ["ALL"]
    assert env["SHOWDOWN_GROUP"] == "adjudicators"
    assert "container_name" not in worker, "replicas need names of their own"


def test_every_service_environment_variable_is_a_setting_and_no_password_is_inline(
    compose: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, user in SHOWDOWN_SERVICES.items():
        service = compose["services"][name]
        env = {k: str(v) for k, v in service["environment"].items()}
        assert set(env) <= SETTINGS_ENV | ENTRYPOINT_ENV, f"{name}: unknown {set(env) - SETTINGS_ENV - ENTRYPOINT_ENV}"
        assert "SHOWDOWN_REDIS_PASSWORD" not in env, f"{name}: passwords come from compose secrets"
        assert env["SHOWDOWN_REDIS_USERNAME"] == user
        secret = env["SHOWDOWN_REDIS_PASSWORD_FILE"].removeprefix("/run/secrets/")
        assert service["secrets"] == [secret], name
        for key in list(os.environ):
            if key.startswith("SHOWDOWN_"):
                monkeypatch.delenv(key)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        settings = Settings()  # every value parses as the worker will parse it
        assert settings.redis_username == user


def test_each_service_logs_in_as_its_own_acl_user_with_a_secret_that_matches_the_acl_file(
    compose: dict[str, Any],
) -> None:
    secrets = compose["secrets"]
    for name, user in SHOWDOWN_SERVICES.items():
        (secret,) = compose["services"][name]["secrets"]
        path = REPO / interpolate(secrets[secret]["file"])
        assert path.parent == REPO / "deploy" / "compose" / "demo-secrets"
        password = path.read_text(encoding="utf-8").strip()
        assert f" #{hashlib.sha256(password.encode()).hexdigest()} " in acl_line(user), f"{name} cannot log in"


def test_the_keys_the_services_use_are_the_keys_their_acl_users_may_touch(compose: dict[str, Any]) -> None:
    env = compose["services"]["worker"]["environment"]
    settings = Settings(shards=env["SHOWDOWN_SHARDS"], group=env["SHOWDOWN_GROUP"])
    patterns = re.findall(r"~(\S+?)\)?(?=\s|$)", acl_line("worker"))
    for shard in settings.shards:
        keys = settings.keys(shard)
        assert keys.events == f"showdown:{{{shard}}}:events"
        for key in (keys.events, keys.results, keys.audit, keys.dead, keys.audit_head, keys.seen("some-hand")):
            assert any(fnmatchcase(key, p) for p in patterns), f"the worker may not touch {key}"


def test_the_demo_profile_publishes_the_bundled_hands_as_the_producer(compose: dict[str, Any]) -> None:
    producer = compose["services"]["producer"]
    assert producer["profiles"] == ["demo"]
    assert producer["command"] == ["showdown", "publish", "--examples"]
    assert producer["healthcheck"] == {"disable": True}
    assert producer["restart"] == "no"
    for name in ("reader", "auditor", "operator"):
        assert compose["services"][name]["profiles"] == ["ops"]


def test_the_metrics_profile_scrapes_every_worker_on_its_metrics_port(compose: dict[str, Any]) -> None:
    prometheus = compose["services"]["prometheus"]
    assert prometheus["profiles"] == ["metrics"]
    assert re.fullmatch(r"prom/prometheus:v\d+\.\d+\.\d+", prometheus["image"])
    assert f"./{PROMETHEUS_FILE.relative_to(REPO)}:/etc/prometheus/prometheus.yml:ro" in prometheus["volumes"]
    assert "--config.file=/etc/prometheus/prometheus.yml" in prometheus["command"]
    config = yaml.safe_load(PROMETHEUS_FILE.read_text(encoding="utf-8"))
    assert set(config) <= {"global", "scrape_configs", "rule_files", "alerting"}
    (job,) = config["scrape_configs"]
    (discovery,) = job["dns_sd_configs"]
    port = int(compose["services"]["worker"]["environment"]["SHOWDOWN_METRICS_PORT"])
    assert (discovery["names"], discovery["type"], discovery["port"]) == (["worker"], "A", port)
    assert str(port) in compose["services"]["worker"]["expose"]
    assert job.get("metrics_path", "/metrics") == "/metrics"


# --- the stack, without containers ------------------------------------------------------------------------------


def container_to_host(compose: dict[str, Any], service: str, path: str, tmp: Path) -> Path:
    """Where a path inside a service's container comes from on this host: a secret, a bind mount or a tmpfs."""
    spec = compose["services"][service]
    if path.startswith("/run/secrets/"):
        name = path.removeprefix("/run/secrets/")
        assert name in spec.get("secrets", []), f"{service} does not mount the secret {name}"
        return REPO / interpolate(compose["secrets"][name]["file"])
    for volume in spec.get("volumes", []):
        source, target = volume_parts(volume)[:2]
        if target == path and source.startswith("./"):
            return REPO / source
    for mount in spec.get("tmpfs", []):
        root = mount.split(":")[0]
        if path.startswith(root + "/"):
            return tmp / path.removeprefix(root + "/")
    raise AssertionError(f"{service}: nothing provides {path}")


def host_command(command: list[str]) -> list[str]:
    """A command of the image, on this host: the entrypoint script and this interpreter's showdown."""
    showdown = [sys.executable, "-m", "showdown_service.cli"]
    if command[0] == "showdown-entrypoint":
        return ["sh", str(ENTRYPOINT), *host_command(command[1:])]
    assert command[0] == "showdown", command
    return ["sh", str(ENTRYPOINT), *showdown, *command[1:]]


def host_env(compose: dict[str, Any], service: str, redis_port: int, tmp: Path, **extra: str) -> dict[str, str]:
    """A service's environment with compose's names and paths replaced by this host's."""
    env = clean_env()
    for key, value in compose["services"][service]["environment"].items():
        text = str(value)
        if key == "SHOWDOWN_REDIS_URL":
            url = urlsplit(text)
            assert (url.hostname, url.port) == ("redis", 6379), "the redis service, on its default port"
            text = url._replace(netloc=f"127.0.0.1:{redis_port}").geturl()
        elif text.startswith("/"):
            text = str(container_to_host(compose, service, text, tmp))
        env[key] = text
    env.update(extra)
    return env


def settled_by(metrics_ports: list[int]) -> float:
    """``showdown_entries_total{outcome="settled"}``, summed over the workers' /metrics pages."""
    settled = 0.0
    for port in metrics_ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as page:
            text = page.read().decode()
        settled += sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                       if line.startswith("showdown_entries_total{") and 'outcome="settled"' in line)  # fmt: skip
    return settled


@pytest.fixture
def compose_redis(compose: dict[str, Any], tmp_path: Path) -> Iterator[AclServer]:
    """redis-server with the redis service's own arguments; its ACL file plus the test admin."""
    args = [interpolate(str(a)) for a in compose["services"]["redis"]["command"]]
    assert args[0] == "redis-server"
    index = args.index("--aclfile") + 1
    acl_file = container_to_host(compose, "redis", args[index], tmp_path)
    assert acl_file == ACL_FILE
    args[index], admin_password = (str(p) if isinstance(p, Path) else p for p in with_admin(acl_file, tmp_path))
    with AclRedis(admin_password, data_dir=tmp_path / "data", extra_args=args[1:]) as server:
        yield AclServer(server, admin_password)


def test_the_compose_stack_settles_the_demo_hands_with_the_same_configuration_on_a_real_server(
    compose: dict[str, Any], compose_redis: AclServer, tmp_path: Path
) -> None:
    port = compose_redis.server.port
    admin = compose_redis.admin()
    assert admin.config_get("appendfsync") == {"appendfsync": "everysec"}
    healthcheck = compose["services"]["redis"]["healthcheck"]["test"][1].replace("redis-cli ", f"redis-cli -p {port} ")
    assert subprocess.run(["sh", "-c", healthcheck], timeout=30, check=False).returncode == 0, "redis healthcheck"

    worker = compose["services"]["worker"]
    replicas = []
    metrics_ports = []
    try:
        for i in range(worker["deploy"]["replicas"]):
            metrics_ports.append(free_port())  # each container has a network namespace of its own; here, a port
            env = host_env(compose, "worker", port, tmp_path / f"replica-{i}",
                           SHOWDOWN_METRICS_PORT=str(metrics_ports[-1]))  # fmt: skip
            Path(env["SHOWDOWN_HEARTBEAT_FILE"]).parent.mkdir(parents=True)
            replicas.append(
                (subprocess.Popen(host_command(worker["command"]), env=env, stdout=subprocess.DEVNULL), env)
            )
        # Each replica up (its first loop done, its first heartbeat) before the hands arrive: a replica still
        # starting when its peer has settled them all would have no heartbeat yet for the check below.
        wait_for(lambda: all(Path(env["SHOWDOWN_HEARTBEAT_FILE"]).exists() for _, env in replicas), "every heartbeat")
        producer = compose["services"]["producer"]
        published = subprocess.run(host_command(producer["command"]), env=host_env(compose, "producer", port, tmp_path),
                                   capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert published.returncode == 0, published.stderr
        assert f"published {EXAMPLE_COUNT} events" in published.stdout
        wait_for(lambda: admin.xlen(KEYS.audit) == EXAMPLE_COUNT, "every demo hand settled")
        for _, env in replicas:
            health = subprocess.run(host_command(worker["healthcheck"]["test"][1:]), env=env, capture_output=True,
                                    text=True, timeout=30, check=False)  # fmt: skip
            assert health.returncode == 0, health.stderr
        # A worker counts an entry once its commit has answered: shortly after Redis holds the audit record.
        wait_for(lambda: settled_by(metrics_ports) == EXAMPLE_COUNT, "the replicas' /metrics to add up to every hand")
    finally:
        for process, _ in replicas:
            process.send_signal(signal.SIGTERM)
        grace = seconds(worker["stop_grace_period"])
        codes = [process.wait(grace) for process, _ in replicas]
    assert codes == [0] * len(replicas), "SIGTERM: a clean stop within stop_grace_period"
    assert admin.xpending(KEYS.events, "adjudicators")["pending"] == 0

    for name, expected in (("auditor", f"{EXAMPLE_COUNT} records, the chain holds"), ("reader", "main pot"),
                           ("operator", "")):  # fmt: skip
        service = compose["services"][name]
        ran = subprocess.run(host_command(service["command"]), env=host_env(compose, name, port, tmp_path),
                             capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert ran.returncode == 0, (name, ran.stderr)
        assert expected in ran.stdout, name
