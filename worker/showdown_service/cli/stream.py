"""CLI commands around the streams: worker, health, publish, audit (results and dead-letters: their own modules).

Why over 400 lines: one verb of the command line per stream job (worker, health, publish, results,
dead-letters, audit), each a few dozen lines, sharing the settings, the client and the output helpers.

Every command reads its Redis settings from ``SHOWDOWN_*`` environment
variables (see :class:`showdown_service.infra.config.Settings`).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType
from typing import cast

import orjson
from pydantic import ValidationError
from redis.cluster import RedisCluster

from showdown_messages import ShowdownEvent, rejections
from showdown_messages.publish import (
    EVENT_FIELD,
    TOURNAMENT_FIELD,
    PublishRefused,
    durability_shortfall,
    durability_waits,
    element,
    refusal,
    route,
    shard_for,
)
from showdown_messages.tournaments import parse_tournament_message
from showdown_service.archive.verify import archive_beyond, verify_texts
from showdown_service.cli.archive import register_audit
from showdown_service.cli.help import (
    DEMO_EXAMPLE,
    DEMO_HELP,
    HEALTH_EXAMPLE,
    HEALTH_HELP,
    SETTINGS_EXAMPLE,
    SETTINGS_HELP,
    VERIFY_EXAMPLE,
    VERIFY_HELP,
    WORKER_EXAMPLE,
    WORKER_HELP,
    positive_int,
)
from showdown_service.decision import audit
from showdown_service.decision.intake import tournament_body, unwrap_event
from showdown_service.infra import logs
from showdown_service.infra.config import Settings, settings_in_effect, settings_table
from showdown_service.infra.connection import REDIS_ERRORS, Client, connect
from showdown_service.infra.examples import UNDECODED, documents, example_counts, example_lines, file_lines
from showdown_service.infra.stops import STOP_REQUESTED, catch_stop_signals
from showdown_service.ops import heartbeat
from showdown_service.ops.metrics import PORTS_TRIED, AuditVerdicts, Metrics
from showdown_service.read.health import health
from showdown_service.worker.loop import GC_THRESHOLDS, GIL_SWITCH_INTERVAL_S, Worker
from showdown_service.worker.restore import acknowledge, read_reset


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the stream commands to the ``showdown`` parser."""
    w = commands.add_parser(
        "worker",
        help="settle events from the streams until SIGTERM/SIGINT",
        description=WORKER_HELP,
        epilog=WORKER_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    w.add_argument("--processes", type=positive_int, default=1, help="worker processes in this group (default 1)")
    w.set_defaults(run=_worker, finishes_on_stop=True)

    st = commands.add_parser(
        "settings",
        help="every SHOWDOWN_* setting: the value in effect (environment applied), where it comes from, what it does",
        description=SETTINGS_HELP,
        epilog=SETTINGS_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    st.add_argument("--defaults", action="store_true", help="print the reference table of defaults instead")
    st.set_defaults(run=_settings)

    h = commands.add_parser(
        "health",
        help="exit 0 if every worker's heartbeat (each of a --processes group) is fresh, none stopped or waits, "
        "and Redis answers",
        description=HEALTH_HELP,
        epilog=HEALTH_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    h.set_defaults(run=_health)

    p = commands.add_parser(
        "publish",
        help="validate the ShowdownEvents of a file (JSON lines, or pretty-printed JSON) and push them to their "
        "shards' inboxes (RPUSH: the append-only path)",
    )
    p.add_argument(
        "file",
        nargs="?",
        help="JSON lines or pretty-printed JSON documents (bare events, or objects holding one under 'event'); "
        "- for stdin",
    )
    p.add_argument(
        "--examples", action="store_true", help="publish the hands bundled with showdown (real showdowns, other games)"
    )
    p.add_argument("--raw", action="store_true", help="send lines unvalidated (to exercise dead letters)")
    p.set_defaults(run=_publish)

    demo = commands.add_parser(
        "demo",
        help="real hands through real workers and Valkey, end to end",
        description=DEMO_HELP,
        epilog=DEMO_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    demo.set_defaults(run=_demo)

    a = commands.add_parser("audit", help="audit trail tools")
    verbs = a.add_subparsers(required=True, metavar="VERB")
    v = verbs.add_parser(
        "verify",
        help="walk each shard's audit hash chain; exit 0 only if every chain holds",
        description=VERIFY_HELP,
        epilog=VERIFY_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    v.add_argument(
        "--metrics-file",
        type=Path,
        metavar="FILE",
        help="also write the verdict for node exporter's textfile collector (FILE ending .prom): "
        "showdown_audit_last_verified_timestamp_seconds and showdown_audit_chain_broken, by shard",
    )
    v.add_argument(
        "--acknowledge-reset",
        action="store_true",
        help="mark each shard's chain restart (after a Redis loss) as seen: health and the showdown_chain_restarted "
        "gauge stop reporting it",
    )
    v.set_defaults(run=_audit_verify)
    register_audit(verbs)


# --- worker --------------------------------------------------------------------------------


def _worker(args: argparse.Namespace) -> int:
    settings = Settings()
    logs.configure(settings.log_level)
    if args.processes > 1:
        return _supervise(settings, args.processes)
    return run_worker(settings)


def run_worker(settings: Settings) -> int:
    """Run one worker in this process until SIGTERM or SIGINT; 0 on a clean stop.

    Two workers on one host: the second one's heartbeat file must be its own (else it stops at once, saying what
    to set); its metrics port moves up by itself while ``SHOWDOWN_METRICS_PORT`` is left at its default.
    """
    beating = heartbeat.claim(settings.heartbeat_file)  # held until the process ends
    metrics = Metrics()
    if settings.metrics_port:
        port = metrics.serve(settings.metrics_port, tries=metrics_ports_tried(settings))
        if port != settings.metrics_port:
            logs.get_logger(worker=settings.consumer).info(
                "metrics_port_moved", port=port, taken=settings.metrics_port, then="scrape this worker there"
            )
    worker = Worker(settings, connect(settings, name=settings.consumer, watch=True), metrics=metrics)
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)  # the I/O thread sends commits without waiting out 5 ms
    gc.freeze()  # everything built so far (evaluator tables, models) lives forever: keep it out of GC passes
    gc.set_threshold(*GC_THRESHOLDS)  # a batch's objects die by reference count: collect rarely (see GC_THRESHOLDS)

    def stop(_signum: int, _frame: FrameType | None) -> None:
        worker.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if STOP_REQUESTED.is_set():  # a stop signal arrived while starting up (see showdown_service.cli.launch)
        worker.stop()
    worker.run()
    beating.close()
    return 0


def metrics_ports_tried(settings: Settings) -> int:
    """How many ports, from ``SHOWDOWN_METRICS_PORT`` up, a worker may serve /metrics on: :data:`PORTS_TRIED` while
    the setting is left at its default (a second worker on the host takes the next port), 1 when it is set (the
    scrape configuration names that port: a taken one is an error saying what to set)."""
    return 1 if "metrics_port" in settings.model_fields_set else PORTS_TRIED


RESTART_FIRST_S, RESTART_MAX_S, RESTART_RESET_S = 0.5, 30.0, 60.0
"""A dead child of ``worker --processes`` is started again after 0.5 s, then 1, 2, 4 ... up to 30 s while it keeps
dying within 60 s of its start; a child that ran 60 s starts from 0.5 s again."""


def _supervise(settings: Settings, processes: int) -> int:
    """Run ``processes`` workers as child processes of one group; restart any that dies; stop them all on a signal.

    Worker ``i`` beats in ``<SHOWDOWN_HEARTBEAT_FILE>.<i>``; the group's own file lists them all for
    ``showdown health`` (see :mod:`showdown_service.ops.heartbeat`). 0 when every worker stopped cleanly; the
    workers are stopped whatever ends the loop.

    A child that dies is restarted after :data:`RESTART_FIRST_S`, doubled at each death that follows a run shorter
    than :data:`RESTART_RESET_S` (up to :data:`RESTART_MAX_S`), so a Redis outage is waited out without a restart
    storm. A child that exits with status 2 (the CLI's "bad settings, or a file or port it cannot use": its
    stderr says which) cannot be helped by restarting: the group stops and returns 2.
    """
    log = logs.get_logger(supervisor=settings.consumer)
    beats = [f"{settings.heartbeat_file}.{i}" for i in range(processes)]

    def spawn(i: int) -> subprocess.Popen[bytes]:
        env = dict(os.environ, SHOWDOWN_CONSUMER=f"{settings.consumer}-{i}", SHOWDOWN_HEARTBEAT_FILE=beats[i])
        env["SHOWDOWN_METRICS_PORT"] = str(settings.metrics_port + i if settings.metrics_port else 0)
        return subprocess.Popen([sys.executable, "-m", "showdown_service", "worker"], env=env)

    catch_stop_signals()  # a stop that arrived while starting up is already in STOP_REQUESTED
    beating = heartbeat.claim(settings.heartbeat_file)  # held until the process ends
    children: list[subprocess.Popen[bytes]] = []
    try:
        heartbeat.write(settings.heartbeat_file, {"processes": beats})
        for i in range(processes):
            children.append(spawn(i))  # noqa: PERF401 - one by one: those started are stopped if the next fails
        log.info("workers_started", processes=processes)
        beaten = started = time.monotonic()
        born = [started] * processes
        delay = [RESTART_FIRST_S] * processes
        due: dict[int, float] = {}  # index -> when a dead child is started again
        unusable = False
        while not STOP_REQUESTED.is_set() and not unusable:
            time.sleep(0.2)
            now = time.monotonic()
            for i, child in enumerate(children):
                if STOP_REQUESTED.is_set() or i in due or child.poll() is None:
                    continue
                if child.returncode == 2:  # bad settings, a file or a port it cannot use: the same next time
                    log.error("worker_process_exited", index=i, status=2, action="stopping the group",
                              reason="restarting cannot help: bad settings, or a file or port it cannot use "
                                     "(its error is above)")  # fmt: skip
                    unusable = True
                    break
                if now - born[i] >= RESTART_RESET_S:  # it ran a while: not a crash loop
                    delay[i] = RESTART_FIRST_S
                due[i] = now + delay[i]
                log.error("worker_process_exited", index=i, status=child.returncode, action="restarting",
                          restart_in_s=delay[i])  # fmt: skip
                delay[i] = min(delay[i] * 2, RESTART_MAX_S)
            for i, when in list(due.items()):
                if now >= when and not STOP_REQUESTED.is_set() and not unusable:
                    del due[i]
                    children[i], born[i] = spawn(i), time.monotonic()
            if time.monotonic() - beaten >= heartbeat.BEAT_INTERVAL_S:
                settings.heartbeat_file.touch()
                beaten = time.monotonic()
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        codes = [child.wait() for child in children]
        heartbeat.write(settings.heartbeat_file, {"processes": beats, "stopped_at": time.time()})
    beating.close()
    log.info("workers_stopped", statuses=codes)
    if unusable:
        return 2
    return 1 if any(code not in (0, -signal.SIGTERM) for code in codes) else 0


def _settings(args: argparse.Namespace) -> int:
    print(settings_table(html=False) if args.defaults else settings_in_effect(Settings()))
    return 0


def _health(_args: argparse.Namespace) -> int:
    """0 only if every worker the heartbeat file stands for (one, or each of a ``--processes`` group) beat
    within ``SHOWDOWN_HEALTH_MAX_AGE_S``, none stopped or waits, and Redis answers; else 1, a line per fault."""
    healthy, lines = health(Settings())
    for line in lines:  # an alert or a degraded shard (not the worker's to fix) is shown on stderr, not failed
        print(line, file=sys.stdout if healthy and not line.startswith(("alert: ", "degraded: ")) else sys.stderr)
    return 0 if healthy else 1


# --- producer and operator tools ---------------------------------------------------------------


PUBLISH_CHUNK = 1000
"""XADDs per round trip of `showdown publish`."""


def _publish(args: argparse.Namespace) -> int:
    """Validate and XADD each JSON document (one a line, or pretty-printed: see
    :func:`~showdown_service.infra.examples.documents`); stop at the first write Redis refuses, saying where (the
    line the document starts on) to resume and why."""
    if args.examples == bool(args.file):
        print("give a FILE (or -) or --examples, not both", file=sys.stderr)
        return 2
    settings = Settings()
    sender = _Sender(connect(settings), wait_replicas=settings.wait_replicas, wait_timeout_ms=settings.wait_timeout_ms,
                     wait_aof=settings.wait_aof)  # fmt: skip
    refused = 0
    lines = example_lines() if args.examples else file_lines(args.file)
    try:
        for number, text in documents(lines):
            payload: str | bytes = text.strip().encode("utf-8", UNDECODED)  # as read, byte for byte
            table_id = hand_id = None
            field = EVENT_FIELD
            if args.raw:
                hand_id = _claimed_hand_id(text)
            elif (body := tournament_body(text)) is not None:  # a tournament message, to its tournament's shard
                try:
                    message = parse_tournament_message(body)
                except ValidationError as exc:
                    refused += 1
                    first = rejections(exc)[0]
                    row = {"line": number, "code": first.code, "field": first.field, "message": first.message}
                    print(json.dumps(row), file=sys.stderr)
                    continue
                payload, table_id, field = (
                    message.model_dump_json(exclude_none=True),
                    message.tournament_id,
                    TOURNAMENT_FIELD,
                )
            else:
                event_text = unwrap_event(text).encode("utf-8", UNDECODED)
                try:
                    event = ShowdownEvent.model_validate_json(event_text)
                except ValidationError as exc:
                    refused += 1
                    first = rejections(exc, event_text)[0]
                    row = {"line": number, "code": first.code, "field": first.field, "message": first.message}
                    print(json.dumps(row), file=sys.stderr)
                    continue
                payload, table_id, hand_id = event.model_dump_json(exclude_none=True), route(event), event.hand_id
            shard = shard_for(table_id, settings.shards) if table_id else settings.shards[0]
            sender.add(settings.keys(shard).inbox, element(field, payload), number, hand_id)
        sender.send()
    except PublishRefused as stopped:
        print(_stopped_line(stopped, refused), file=sys.stderr)
        return 1
    bundled = ", ".join(f"{n} {kind}" for kind, n in example_counts().items()) if args.examples else ""
    print(
        f"published {sender.accepted} events"
        + (f" (the bundled hands: {bundled})" if bundled else "")
        + (f"; refused {refused} (see stderr)" if refused else "")
    )
    return 1 if refused else 0


def _stopped_line(stopped: PublishRefused, invalid: int) -> str:
    """One line: where publishing stopped, why, how much went out, and that re-running the file is safe."""
    hand = f" (hand_id {stopped.hand_id!r})" if stopped.hand_id else ""
    fate = "may not have arrived (no reply)" if stopped.unsure else "were not published"
    refused = f"; {invalid} invalid lines were refused (above)" if invalid else ""
    return (
        f"showdown publish: stopped at {stopped.where}{hand}: {stopped.why_text}. "
        f"{stopped.accepted} events were published; {stopped.where} and the lines after it {fate}{refused}. "
        "Re-run the same file once Redis takes writes: hands already published come back as duplicates, "
        "never settled twice."
    )


class _Sender:
    """RPUSHes (one element each) in pipelines of PUBLISH_CHUNK; raises PublishRefused at the first write Redis
    refuses or cannot confirm.

    ``accepted`` counts the writes Redis confirmed. Entries after a refused
    one in the same pipeline may have been accepted too (memory freed in
    between): they are counted, and re-sending them is harmless.

    ``wait_replicas`` > 0 (WAIT) or ``wait_aof`` (WAITAOF): each pipeline ends
    with them on every node it wrote to; a shortfall within ``wait_timeout_ms``
    stops publishing at the pipeline's first line (``NOTREPLICATED``,
    ``NOTFSYNCED``): its lines are on the master but not known to be durable,
    so they are not counted.
    """

    def __init__(
        self, client: Client, *, wait_replicas: int = 0, wait_timeout_ms: int = 1000, wait_aof: bool = False
    ) -> None:
        self.client = client
        self.pipe = client.pipeline(transaction=False)
        self.queued: list[tuple[int, str | None]] = []
        """(line number, hand_id) of each RPUSH in the pipeline, in order."""
        self.keys: set[str] = set()
        """The inboxes the pipeline writes to (a WAIT goes to each of their nodes)."""
        self.wait = (wait_replicas, wait_timeout_ms, wait_aof)
        self.accepted = 0

    def add(self, inbox: str, pushed: bytes, line: int, hand_id: str | None) -> None:
        self.pipe.rpush(inbox, pushed)
        self.queued.append((line, hand_id))
        self.keys.add(inbox)
        if len(self.queued) == PUBLISH_CHUNK:
            self.send()

    def _queue_waits(self) -> list[int]:
        """WAIT / WAITAOF after the pushes, on each node written to (they cover their own connection's writes);
        how many replies each node's waits add."""
        keys, self.keys = self.keys, set()
        replicas, timeout_ms, aof = self.wait
        if not replicas and not aof:
            return []
        one_per_node: dict[str | None, str] = {}
        for key in sorted(keys):
            node = self.client.get_node_from_key(key).name if isinstance(self.client, RedisCluster) else None  # type: ignore[no-untyped-call]
            one_per_node.setdefault(node, key)
        return [
            durability_waits(self.pipe, self.client, key, replicas=replicas, timeout_ms=timeout_ms, aof=aof)
            for key in one_per_node.values()
        ]

    def send(self) -> None:
        queued, self.queued = self.queued, []
        if not queued:
            return
        waits = self._queue_waits()
        try:
            replies = self.pipe.execute(raise_on_error=False)
        except REDIS_ERRORS as exc:  # no reply at all (a lost connection): none of these is confirmed
            line, hand_id = queued[0]
            why = refusal(exc)
            raise PublishRefused(
                accepted=self.accepted, hand_id=hand_id, why=why, detail=str(exc), where=f"line {line}", unsure=True
            ) from exc
        waited = replies[len(queued) :]
        replies = replies[: len(queued)]
        line, hand_id = queued[0]
        replicas, timeout_ms, aof = self.wait
        for count in waits:
            node_replies, waited = waited[:count], waited[count:]
            try:
                short = durability_shortfall(node_replies, replicas=replicas, timeout_ms=timeout_ms, aof=aof)
            except REDIS_ERRORS as exc:  # WAIT/WAITAOF refused (NOPERM; WAITAOF unknown before Redis 7.2)
                raise PublishRefused(accepted=self.accepted, hand_id=hand_id, why=refusal(exc), detail=str(exc),
                                     where=f"line {line}", unsure=True) from exc  # fmt: skip
            if short is not None:
                why, detail = short
                raise PublishRefused(accepted=self.accepted, hand_id=hand_id, why=why,
                                     detail=f"{detail} (lines {line}-{queued[-1][0]})", where=f"line {line}",
                                     unsure=True)  # fmt: skip
        failed = [(i, reply) for i, reply in enumerate(replies) if isinstance(reply, Exception)]
        self.accepted += len(replies) - len(failed)
        if failed:
            i, first = failed[0]
            line, hand_id = queued[i]
            detail = str(first)
            if len(failed) < len(replies) - i:
                detail += f" ({len(replies) - i - len(failed)} lines after it were published all the same)"
            raise PublishRefused(
                accepted=self.accepted, hand_id=hand_id, why=refusal(first), detail=detail, where=f"line {line}"
            )


def _claimed_hand_id(text: str) -> str | None:
    """The hand_id an unvalidated (--raw) document claims, if it is a readable event: to say where publishing
    stopped."""
    try:
        doc = orjson.loads(unwrap_event(text))
    except orjson.JSONDecodeError:  # (also text that is not UTF-8)
        return None
    hand_id = doc.get("hand_id") if isinstance(doc, dict) else None
    return hand_id if isinstance(hand_id, str) else None


def _demo(_args: argparse.Namespace) -> int:
    from showdown_service.cli.demo import run  # noqa: PLC0415 - only this command needs it

    return run()


def _audit_verify(args: argparse.Namespace) -> int:
    """Each shard's chain, then its results, dead letters and standings against the records' digests; a shard with
    no audit stream at all is an error (a misspelt SHOWDOWN_SHARDS, or a chain deleted whole)."""
    settings = Settings()
    client = connect(settings)
    broken = 0
    verdicts = AuditVerdicts()
    for shard in settings.shards:
        keys = settings.keys(shard)
        reset = read_reset(client, keys)
        if reset is not None:  # named whatever the chain's verdict: the chain below is the new epoch's
            seen = f"acknowledged at {reset.acknowledged_at}" if reset.acknowledged_at else "not acknowledged"
            print(f"shard {shard}: RESTARTED: {reset.text()} ({seen})")
        stored = client.get(keys.audit_head)
        seq, digest = (cast(bytes | None, client.hget(keys.archive, f)) for f in ("seq", "hash"))  # auditor: +hget
        floor = audit.Head(int(seq), digest.decode()) if seq and digest else None  # how far the archive goes
        verdict = audit.verify(audit.read_stream(client, keys.audit), audit.Head.decode(stored), floor)
        if verdict.records == 0 and not stored:
            broken += 1
            verdicts.add(shard, holds=False)
            print(f"shard {shard}: NO AUDIT STREAM ({keys.audit}): an unknown shard, or its chain was deleted whole")
            continue
        if verdict.first_break is not None:
            broken += 1
            verdicts.add(shard, holds=False)
            b = verdict.first_break
            where = f"seq {b.seq}" if b.seq is not None else "a record"
            print(f"shard {shard}: BROKEN at {where} (stream id {b.stream_id or '-'}): {b.kind}: {b.detail}")
            continue
        checked, forged = verify_texts(client, keys)
        past, unread = archive_beyond(client, settings, keys)  # a file appended after the last: past the head
        if unread:
            print(f"shard {shard}: the archive ({settings.archive_url}) was not read: {unread}", file=sys.stderr)
        verdicts.add(shard, holds=not forged and not past)
        for forgery in forged:
            print(f"shard {shard}: FORGED {forgery.stream} {forgery.stream_id}: {forgery.detail}")
        for line in past:
            print(f"shard {shard}: ARCHIVE {line}")
        if forged or past:
            broken += 1
            continue
        archived_only = f", archived to seq {floor.seq} (`showdown audit replay` proves the archive)" if floor else ""
        print(
            f"shard {shard}: {verdict.records} records, the chain holds (head seq {verdict.head.seq}{archived_only}); "
            f"{checked} results, dead letters and placements match their digests"
        )
    if args.metrics_file is not None:
        verdicts.write(args.metrics_file)
    if args.acknowledge_reset:
        for shard in acknowledge(client, [settings.keys(shard) for shard in settings.shards]):
            print(f"shard {shard}: chain restart acknowledged")
    return 1 if broken else 0
