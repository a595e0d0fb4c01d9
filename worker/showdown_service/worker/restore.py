"""After a Redis loss: what the workers restore from the archive before a new chain settles its first entry.

A Redis restarted without its data (no persistence, a lost volume, FLUSHALL)
comes back with an empty audit chain: a worker then starts a new chain (a new
*epoch*: its id is the hash of its first record, see
:func:`showdown_service.decision.audit.read_epoch`). What the old chain settled is in
the archive, not in Redis: the dedupe keys that make a re-sent hand a
``duplicate``, and the tournament ledgers.

So a worker that finds its shard's chain empty (the head it plans on is
seq 0) asks the archive (``SHOWDOWN_ARCHIVE_URL``) whether it holds a chain of
the shard. None (a new deployment; a worker with no archive: the directory
does not exist) changes nothing: the worker goes on as it always did.
Otherwise, before its first commit, it (:func:`restore_after_loss`):

1. sets the dedupe key of every hand the archive has settled on the shard
   within ``SHOWDOWN_DEDUPE_TTL_S`` (its digest, with the TTL it had left,
   measured from the record's ``at``): a hand re-sent after the loss is a
   ``duplicate``, or ``conflicting_duplicate``, exactly as before;
2. puts back the cross-shard claims (:mod:`showdown_service.decision.routing`): the registry's
   ``hand:<hand_id>`` key of every hand the archive has settled within the
   dedupe TTL, on any shard, naming that shard (``SET NX``, with the TTL it had
   left), and each tournament the archive knows on this shard in the
   registry's ``tournaments`` hash (``HSETNX``): a copy of an archived hand
   read by another shard after the loss is refused ``wrong_shard`` as it would
   have been, never paid there;
3. adds every tournament the archive knows on the shard (one whose ledger
   took a message) to the shard's ``tournaments:lost`` set: their hands and
   messages are refused ``ledger_lost`` (never settled as plain hands) until
   ``showdown tournament restore ID`` rebuilds the ledger from the archive;
4. writes back every jackpot fund the archive knows on the shard, as its
   archived results leave it (:func:`showdown_service.worker.funds.fold_archived`,
   every chain of the shard in order): a fund is one balance and its counts,
   so it is rebuilt here, not refused; a fund whose archived results do not
   follow on (one hand's ``fund_before`` not the last one's ``fund_after``)
   makes the restore fail as an unreadable archive does (the worker waits);
5. records the reset in the shard's ``audit:reset`` hash: the archived chain's
   epoch, last seq and hash, when and what it restored; the commit script
   adds the new chain's ``epoch`` and ``began_at`` with its first record.
   ``showdown health``, ``audit verify``, the ``showdown_chain_restarted``
   gauge and the ``ShowdownChainRestarted`` alert read it: "the chain
   restarted: epoch X archived to seq N, epoch Y began at T".

The hash is written last: its presence says the restore is complete, and a
worker finding it does nothing more (several workers at an empty head may
each restore; every step is idempotent: ``SET NX``, ``SADD``). An archive that
exists but cannot be read makes the worker wait, settling nothing, like a
Redis outage (``ARCHIVE`` in ``showdown health``) until it can.

What this cannot restore: entries the old chain settled after its last
archived seq (the lost tail). Their dedupe keys are gone with them (a re-send
of one settles again); the archive never had them.

**Redis back behind the archive.** An AOF with ``appendfsync everysec``
loses its last second: Redis comes back with its chain's head at seq H while
the archive holds that chain (its epoch) to seq A > H. Extending the chain
from H would fork it (two records of each seq H+1..A) and settle again the
hands of H+1..A whose dedupe keys went with the lost second. So before a
worker first commits on a head it has not checked (after its start, after any
Redis error, after the head went backwards under it), it asks the archive
(:func:`chain_behind`); an archive past the head makes it start a new epoch
(:func:`start_new_epoch`, one script, only while the head is still H): the
old chain's records, results, dead letters and placements (all archived, up
to H) leave Redis's streams, its head, epoch and any older ``audit:reset``
go, and the ledgers of its open tournaments too (they stand at H, the archive
has them further: rebuilt with ``showdown tournament restore``). Then the
restore above runs as for an empty Redis, and the reset names the gap:
"Redis came back at seq H, behind the archive" (``redis_seq``).

**The registry's own loss.** On Redis Cluster the node holding the
``{registry}`` slot may restart empty while the shards' nodes keep their
chains: no head is empty, so the restore above never runs, yet the claims are
gone. The registry's marker goes with it (:func:`restore_registry`): a worker
finding it missing (at its start, after any Redis error) puts every claim and
tournament back from the archive before it claims a hand.

Over 400 lines because its parts are one sequence a worker runs before a new
epoch's first commit (the chain left behind the archive, the dedupe, the
claims, the lost tournaments, the reset that says it is done) and the reset's
reading, each step's reason beside it; split, the order would be read in
several files.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import orjson
import redis

from showdown_core import InvariantViolation
from showdown_messages.publish import Refusal
from showdown_service.decision.audit import EMPTY, GENESIS, Head
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.worker.funds import encode, fold_archived

ARCHIVE_WAIT: Final = "ARCHIVE"
"""The worker's wait (``showdown_redis_waiting{reason}``, health) while the archive it must restore from cannot be
read."""
RESTORE_CHUNK: Final = 1000
"""Dedupe keys set (tournaments marked lost) per round trip."""
MARK_LOST_LUA: Final = """
for i = 1, #ARGV do
  if redis.call('EXISTS', KEYS[i + 1]) == 0 then
    redis.call('SADD', KEYS[1], ARGV[i])
  end
end
return 0
"""
"""KEYS: the shard's ``tournaments:lost`` set, then each tournament's ledger; ARGV: their ids. Marks lost only those
with no ledger (one restored meanwhile, by another worker's first commit or ``tournament restore``, stays)."""


BEHIND_LUA: Final = """
if (redis.call('GET', KEYS[1]) or '') ~= ARGV[1] or (redis.call('GET', KEYS[2]) or '') ~= ARGV[2] then
  return 0
end
for i = 3, 6 do
  redis.call('XTRIM', KEYS[i], 'MAXLEN', 0)
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[7], KEYS[8])
if redis.call('EXISTS', KEYS[9]) == 1 then
  redis.call('HSET', KEYS[9], 'seq', 0, 'hash', ARGV[3], 'epoch', '')
end
for i = 10, #KEYS do
  redis.call('DEL', KEYS[i])
end
return 1
"""
"""KEYS: the chain head, its epoch key, the audit, results, dead-letter and standings streams, ``audit:reset``, the
open-tournaments set, the archiver's progress hash, then each open tournament's ledger; ARGV: the head and epoch key
expected, the genesis hash. Only while both are as expected (no commit since they were read): empties the streams
(their keys and last ids kept), deletes the head, epoch, reset, open set and ledgers; the progress recorded says the
new chain is archived to seq 0 (its file, events floor and the old epoch's fields kept). Returns 1 if done, 0 if the
chain moved."""


class ArchiveUnreadable(redis.RedisError):
    """The archive holds (or may hold) what Redis lost and cannot be read: the worker waits, settling nothing.

    A :class:`redis.RedisError` so the worker's loop treats it as it treats an
    outage: backoff, its pending entries kept, retried until it can read."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"the archive cannot be read: {detail}")
        self.refusal = Refusal(
            ARCHIVE_WAIT,
            "the chain is empty and the archive to restore it from cannot be read: nothing is settled until it can "
            f"({detail})",
        )


@dataclass(frozen=True, slots=True)
class ArchivedChain:
    """One chain (epoch) of a shard as the archive holds it: files linked by seq and hash from seq 1."""

    epoch: str
    """The hash of its seq 1 record."""
    began_at: str
    """Its seq 1 record's ``at``."""
    last_seq: int
    last_hash: str
    files: tuple[str, ...]
    """Its files' paths, in seq order (those that link up from seq 1)."""


def archived_chains(store: Any, shard: str) -> list[ArchivedChain]:
    """Every chain of ``shard`` in the archive (a :class:`~showdown_service.storage.layout.Store`), oldest first.

    Files are linked by their metadata: a chain starts at a file whose first seq is 1 (its first record's
    ``prev_hash`` the genesis), and goes on through each file whose first seq and ``first_prev_hash`` follow the
    previous file's last seq and hash. Two epochs' files, side by side, are two chains.
    """
    from showdown_service.storage.layout import read_meta, read_rows, shard_files  # noqa: PLC0415 - pyarrow

    metas = [read_meta(store, path) for _, _, path in shard_files(store, shard)]
    following = {(m.first_seq, m.first_prev_hash): m for m in metas}
    chains = []
    for start in (m for m in metas if m.first_seq == 1 and m.first_prev_hash == GENESIS):
        first = read_rows(store, start.path, columns=["audit"]).slice(0, 1).to_pylist()
        record = orjson.loads(first[0]["audit"]) if first and first[0]["audit"] else {}
        files, last = [start.path], start
        while (nxt := following.get((last.last_seq + 1, last.last_hash))) is not None:
            files.append(nxt.path)
            last = nxt
        chains.append(
            ArchivedChain(str(record.get("hash", "")), str(record.get("at", "")), last.last_seq, last.last_hash,
                          tuple(files))
        )  # fmt: skip
    return sorted(chains, key=lambda c: (c.began_at, c.last_seq))


@dataclass(frozen=True, slots=True)
class Restored:
    """What one restore did."""

    chain: ArchivedChain
    """The newest archived chain: the one Redis lost."""
    hands: int
    """Dedupe keys set."""
    tournaments: tuple[str, ...]
    """Tournaments marked lost."""
    claims: int = 0
    """Cross-shard hand claims put back (of every shard's archived hands)."""
    funds: int = 0
    """Jackpot funds written back."""


@dataclass(frozen=True, slots=True)
class Behind:
    """Redis's chain came back behind what the archive holds of it (the gap: the archive's seqs after ``redis_seq``
    that Redis lost, and whatever that chain settled after ``archived_seq``, lost with Redis)."""

    epoch: str
    redis_seq: int
    """The head Redis came back with."""
    archived_seq: int
    """The last seq the archive holds of the same epoch."""
    file: str

    def text(self) -> str:
        return (
            f"Redis came back with epoch {self.epoch[:16]} at seq {self.redis_seq}, behind the archive's seq "
            f"{self.archived_seq} ({self.file})"
        )


def chain_behind(client: Any, settings: Settings, keys: ShardKeys, head: Head) -> Behind | None:
    """Whether the archive holds the chain Redis runs (its epoch) past ``head``: a Redis that lost its last writes
    (never so otherwise: the archive only holds what Redis held). None without an archive, at an empty head, or
    for a chain whose epoch is unknown. Raises :class:`ArchiveUnreadable` when the archive cannot be read."""
    from showdown_service.storage.lookup import archive_exists  # noqa: PLC0415 - light

    if head.seq == 0 or not archive_exists(settings.archive_url):
        return None
    stored = client.get(keys.audit_epoch)
    epoch = stored.decode() if isinstance(stored, bytes) else str(stored or "")
    from pyarrow.lib import ArrowException  # noqa: PLC0415 - pyarrow only when asked

    from showdown_service.storage.layout import ArchiveError, newest_file, open_store  # noqa: PLC0415

    try:
        store = open_store(settings.archive_url, settings)
        newest = newest_file(store, keys.shard, epoch) if epoch else _legacy_newest(store, keys.shard)
    except (ArchiveError, ArrowException, OSError) as exc:
        raise ArchiveUnreadable(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
    if newest is None or newest.last_seq <= head.seq:
        return None
    return Behind(epoch or newest.epoch or LEGACY_EPOCH, head.seq, newest.last_seq, newest.path)


LEGACY_EPOCH: Final = "0"
"""The epoch a chain begun before epochs is known by (no ``audit:epoch`` in Redis, its files named without one) where
the archive holds no record of its seq 1 to name it by."""


def _legacy_newest(store: Any, shard: str) -> Any:
    """A chain begun before epochs existed (Redis holds no ``audit:epoch``: epoch 0): the newest file of the
    archive's chain of files named without an epoch (with those its archiver named since, by the hash of its seq 1
    record), or None if the archive holds no such file. Checked as any chain is, never skipped."""
    from showdown_service.storage.layout import epoch_runs, newest_run, read_meta, shard_runs  # noqa: PLC0415

    if not any(run.epoch16 == "" for run in shard_runs(store, shard)):
        return None
    groups = epoch_runs(store, shard)  # the files named before epochs join the chain their seq 1 record names
    legacy = [group for group in groups.values() if any(run.epoch16 == "" for run in group)]
    newest = newest_run(legacy[0]) if legacy else None
    return read_meta(store, newest.path) if newest is not None else None


def start_new_epoch(client: Any, keys: ShardKeys, head: Head) -> bool:
    """Leave a chain that Redis holds behind the archive (see the module's text) so the next commit begins a new
    epoch; only while its head is still ``head``. True if done, False if the chain moved meanwhile (read again)."""
    stored = client.get(keys.audit_epoch)
    opened = sorted(t.decode() if isinstance(t, bytes) else str(t) for t in client.smembers(keys.tournaments_open))
    script = client.register_script(BEHIND_LUA)
    done = script(
        keys=[keys.audit_head, keys.audit_epoch, keys.audit, keys.results, keys.dead, keys.standings,
              keys.audit_reset, keys.tournaments_open, keys.archive, *(keys.tournament(t) for t in opened)],
        args=[head.encode(), stored or "", GENESIS],
    )  # fmt: skip
    return bool(done)


VOUCH_TRIES: Final = 5
"""Reads of a shard's head while checking it against the archive (each moved by another worker's commit) before
the worker waits and tries again."""


def leave_if_behind(client: Any, settings: Settings, keys: ShardKeys, head: Head) -> tuple[Head, Behind | None]:
    """The head to plan on and, when Redis came back behind the archive, what was left: ``(head, None)`` while the
    archive is not past it; ``(EMPTY, behind)`` once :func:`start_new_epoch` left the chain. Read again when another
    worker committed meanwhile. Raises :class:`ArchiveUnreadable` while the archive cannot be read, and a
    :class:`redis.ConnectionError` (the worker waits, then asks again) when the head moved every time."""
    for _ in range(VOUCH_TRIES):
        behind = chain_behind(client, settings, keys, head)
        if behind is None:
            return head, None
        if start_new_epoch(client, keys, head):
            return EMPTY, behind
        head = Head.decode(client.get(keys.audit_head))  # another worker committed (or left the chain) meanwhile
        if head.seq == 0:
            return head, None
    raise redis.ConnectionError(f"shard {keys.shard}: the chain head moved {VOUCH_TRIES} times while it was checked "
                                "against the archive")  # fmt: skip


def restore_after_loss(
    client: Any, settings: Settings, keys: ShardKeys, *, now: float | None = None, behind: Behind | None = None
) -> Restored | None:
    """At an empty chain head: restore the shard's dedupe keys and mark its tournaments lost, from the archive
    (see the module's text); ``None`` when there is nothing to do (restored already, or no archived chain).
    Raises :class:`ArchiveUnreadable` when the archive exists and cannot be read. ``behind``: the chain Redis came
    back with behind the archive, left by :func:`start_new_epoch` (its seq is recorded: ``redis_seq``)."""
    from showdown_service.storage.lookup import archive_exists  # noqa: PLC0415 - light

    url = settings.archive_url
    if not archive_exists(url):  # first: a worker without an archive sends Redis nothing more than before
        return None
    if client.exists(keys.audit_reset):
        return None
    instant = time.time() if now is None else now
    import duckdb  # noqa: PLC0415 - pyarrow and DuckDB only once a chain is empty
    from pyarrow.lib import ArrowException  # noqa: PLC0415

    from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415

    try:
        store = open_store(url, settings)
        chains = archived_chains(store, keys.shard)
        if not chains:
            return None
        hands, tournaments, claims = _archived_state(store, keys.shard, instant - settings.dedupe_ttl_s)
        funds = fold_archived(_fund_rows(store, chains))
    except (ArchiveError, ArrowException, OSError, duckdb.Error, InvariantViolation) as exc:
        raise ArchiveUnreadable(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
    for start in range(0, len(hands), RESTORE_CHUNK):
        pipe = client.pipeline(transaction=False)
        for hand_id, digest, at in hands[start : start + RESTORE_CHUNK]:
            left = int(settings.dedupe_ttl_s - (instant - at))
            if left > 0:
                pipe.set(keys.seen(hand_id), digest, ex=left, nx=True)
        pipe.execute()
    claimed = _put_back_claims(client, settings, keys, claims, tournaments, instant=instant)
    mark = client.register_script(MARK_LOST_LUA)
    for start in range(0, len(tournaments), RESTORE_CHUNK):
        chunk = tournaments[start : start + RESTORE_CHUNK]
        mark(keys=[keys.tournaments_lost, *(keys.tournament(t) for t in chunk)], args=chunk)
    pipe = client.pipeline(transaction=True)
    for jackpot_id, fund in funds.items():  # as the archive leaves it (a fund Redis kept behind it is replaced)
        fields = encode(fund)
        pipe.delete(keys.jackpot(jackpot_id))
        pipe.hset(keys.jackpot(jackpot_id), mapping=dict(zip(fields[::2], fields[1::2], strict=True)))
    pipe.execute()
    _claim_funds(client, settings, [(jackpot_id, keys.shard) for jackpot_id in funds])
    chain = chains[-1]
    client.hset(
        keys.audit_reset,
        mapping={
            "archived_epoch": chain.epoch,
            "archived_seq": chain.last_seq,
            "archived_hash": chain.last_hash,
            "restored_at": _utc(instant),
            "hands": len(hands),
            "tournaments": len(tournaments),
            "claims": claimed,
            "jackpots": len(funds),
            **({"redis_seq": behind.redis_seq} if behind is not None else {}),
        },
    )
    return Restored(chain, len(hands), tuple(tournaments), claimed, len(funds))


def _fund_rows(store: Any, chains: Sequence[ArchivedChain]) -> Iterator[tuple[str, str, str]]:
    """``(hand_id, settled_at, result)`` of each settled hand with a jackpot fund in ``chains`` (oldest first), in
    the order each chain settled them."""
    from showdown_service.storage.layout import read_rows  # noqa: PLC0415 - pyarrow

    for chain in chains:
        for path in chain.files:
            for row in read_rows(store, path, columns=["outcome", "hand_id", "settled_at", "result"]).to_pylist():
                result = row["result"]
                if row["outcome"] == "settled" and result and '"fund_after"' in result:
                    yield str(row["hand_id"]), str(row["settled_at"]), str(result)


def _put_back_claims(
    client: Any, settings: Settings, keys: ShardKeys, claims: list[tuple[str, str, float]], tournaments: list[str],
    *, instant: float,
) -> int:  # fmt: skip
    """Set each archived hand's cross-shard claim (``hand_id, shard, settled at``) where none is (with the TTL it
    had left), and claim this shard's archived tournaments in the registry where unclaimed; the hand claims set."""
    return _put_back(client, settings, claims, [(t, keys.shard) for t in tournaments], instant=instant)


def _put_back(
    client: Any, settings: Settings, claims: list[tuple[str, str, float]], tournaments: list[tuple[str, str]],
    *, instant: float,
) -> int:  # fmt: skip
    """Set each hand claim (``hand_id, shard, settled at``) where none is, with the TTL it had left (``SET NX``), and
    name each tournament's shard (``tournament_id, shard``) in the registry where unnamed (``HSETNX``), in chunks of
    :data:`RESTORE_CHUNK`: nothing a worker claimed meanwhile is changed; the hand claims set."""
    from showdown_service.decision.routing import hand_key, registry_key  # noqa: PLC0415 - no cycle at import

    prefix = settings.key_prefix
    done = 0
    for start in range(0, len(claims), RESTORE_CHUNK):
        pipe = client.pipeline(transaction=False)
        for hand_id, shard, at in claims[start : start + RESTORE_CHUNK]:
            left = int(settings.dedupe_ttl_s - (instant - at))
            if left > 0:
                pipe.set(hand_key(hand_id, prefix), shard, ex=left, nx=True)
                done += 1
        pipe.execute()
    for start in range(0, len(tournaments), RESTORE_CHUNK):
        pipe = client.pipeline(transaction=False)
        for tournament_id, shard in tournaments[start : start + RESTORE_CHUNK]:
            pipe.hsetnx(registry_key(prefix), tournament_id, shard)
        pipe.execute()
    return done


def _claim_funds(client: Any, settings: Settings, funds: list[tuple[str, str]]) -> None:
    """Name each jackpot's shard (``jackpot_id, shard``) in the registry where unnamed (``HSETNX``): the shard the
    archive says kept its fund (:mod:`showdown_service.decision.routing`). Its own round trip: on Redis Cluster the
    registry's slot is not the shard's."""
    from showdown_service.decision.routing import jackpot_registry_key  # noqa: PLC0415 - no cycle at import

    for start in range(0, len(funds), RESTORE_CHUNK):
        pipe = client.pipeline(transaction=False)
        for jackpot_id, shard in funds[start : start + RESTORE_CHUNK]:
            pipe.hsetnx(jackpot_registry_key(settings.key_prefix), jackpot_id, shard)
        pipe.execute()


@dataclass(frozen=True, slots=True)
class RegistryRestored:
    """What :func:`restore_registry` put back in a registry that had lost its data."""

    claims: int
    """Hand claims (every shard's hands archived within the dedupe TTL)."""
    tournaments: int
    """Tournaments named to their shards."""
    jackpots: int = 0
    """Jackpots named to the shard that kept their fund."""


def restore_registry(client: Any, settings: Settings, *, now: float | None = None) -> RegistryRestored | None:
    """The registry's own loss (issue 33): on Redis Cluster the node holding the ``{registry}`` slot may restart
    empty while the shards' nodes keep their chains, so no shard's head is empty and no restore of a shard runs;
    the claims are gone, and a copy of a settled hand read by another shard would be paid there too. The
    registry's marker (:func:`~showdown_service.decision.routing.registry_epoch_key`) goes with it: when it is
    missing, every hand claim archived within the dedupe TTL (any shard's, with the TTL it had left), every
    archived tournament's shard and every archived jackpot fund's shard are put back (``SET NX``, ``HSETNX``:
    nothing a worker claimed meanwhile is changed), as the restore after a loss does, and the marker written last.
    ``None`` when the marker is there (nothing lost); raises :class:`ArchiveUnreadable` while the archive cannot be
    read (the worker waits). Without an archive (a new deployment) only the marker is written."""
    from showdown_service.decision.routing import registry_epoch_key  # noqa: PLC0415
    from showdown_service.storage.lookup import archive_exists  # noqa: PLC0415 - light

    marker = registry_epoch_key(settings.key_prefix)
    if client.exists(marker):
        return None
    instant = time.time() if now is None else now
    claims: list[tuple[str, str, float]] = []
    tournaments: list[tuple[str, str]] = []
    funds: list[tuple[str, str]] = []
    if archive_exists(settings.archive_url):
        import duckdb  # noqa: PLC0415 - pyarrow and DuckDB only once the registry is lost
        from pyarrow.lib import ArrowException  # noqa: PLC0415

        from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415
        from showdown_service.storage.recall import connect  # noqa: PLC0415

        try:
            con = connect(open_store(settings.archive_url, settings))
            try:
                claimed = con.execute(CLAIMS_SQL, [_utc(instant - settings.dedupe_ttl_s)]).fetchall()
                tournaments = [(str(t), str(s)) for t, s in con.execute(REGISTRY_SQL).fetchall() if s]
                funds = [(str(j), str(s)) for j, s in con.execute(FUNDS_SQL).fetchall() if j and s]
            finally:
                con.close()
        except (ArchiveError, ArrowException, OSError, duckdb.Error) as exc:
            raise ArchiveUnreadable(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
        claims = [(str(hand_id), str(holder), _instant(str(at))) for hand_id, holder, at in claimed if holder]
    put = _put_back(client, settings, claims, tournaments, instant=instant)
    _claim_funds(client, settings, funds)
    client.set(marker, _utc(instant), nx=True)
    return RegistryRestored(put, len(tournaments), len(funds))


HANDS_SQL: Final = """
SELECT hand_id, json_extract_string(audit, '$.event_sha256') AS digest, max(settled_at) AS at
FROM archive_rows
WHERE shard = ? AND outcome = 'settled' AND hand_id IS NOT NULL AND settled_at >= ?
GROUP BY hand_id, digest
"""
"""Each hand settled on the shard since the cutoff: its event's digest (as its dedupe key held it) and when."""
TOURNAMENTS_SQL: Final = """
SELECT DISTINCT tournament_id FROM archive_rows
WHERE shard = ? AND tournament_id IS NOT NULL AND event_field = 'tournament' AND outcome = 'settled'
ORDER BY tournament_id
"""
"""The shard's tournaments whose ledgers took a message: those a ledger was kept for."""
CLAIMS_SQL: Final = """
SELECT hand_id, arg_min(shard, settled_at) AS shard, min(settled_at) AS at
FROM archive_rows
WHERE outcome = 'settled' AND hand_id IS NOT NULL AND settled_at >= ?
GROUP BY hand_id
"""
"""Each hand settled since the cutoff on any shard: the shard that settled it first (the claim's holder), and when
(its claim was made then, with the dedupe TTL)."""
REGISTRY_SQL: Final = """
SELECT tournament_id, arg_min(shard, seq) AS shard FROM archive_rows
WHERE tournament_id IS NOT NULL AND event_field = 'tournament' AND outcome = 'settled'
GROUP BY tournament_id ORDER BY tournament_id
"""
"""Every archived tournament whose ledger took a message, and the shard that holds it (its ledger's)."""
FUNDS_SQL: Final = """
SELECT json_extract_string(result, '$.jackpot.jackpot_id') AS jackpot_id, arg_min(shard, settled_at) AS shard
FROM archive_rows
WHERE outcome = 'settled' AND result LIKE '%"fund_after"%'
GROUP BY jackpot_id ORDER BY jackpot_id
"""
"""Every archived jackpot fund and the shard that kept it (the first to settle a hand with it)."""


def _archived_state(
    store: Any, shard: str, cutoff: float
) -> tuple[list[tuple[str, str, float]], list[str], list[tuple[str, str, float]]]:
    """The shard's hands to dedupe (hand id, digest, settled at), its tournaments, every shard's hand claims (hand
    id, shard, settled at)."""
    from showdown_service.storage.recall import connect  # noqa: PLC0415

    con = connect(store)
    try:
        rows = con.execute(HANDS_SQL, [shard, _utc(cutoff)]).fetchall()
        tournaments = [str(t) for (t,) in con.execute(TOURNAMENTS_SQL, [shard]).fetchall()]
        claimed = con.execute(CLAIMS_SQL, [_utc(cutoff)]).fetchall()
    finally:
        con.close()
    claims = [(str(hand_id), str(holder), _instant(str(at))) for hand_id, holder, at in claimed if holder]
    latest: dict[str, tuple[str, float]] = {}
    for hand_id, digest, at in rows:
        when = _instant(str(at))
        if digest and (hand_id not in latest or latest[hand_id][1] < when):
            latest[str(hand_id)] = (str(digest), when)
    return [(hand_id, digest, at) for hand_id, (digest, at) in latest.items()], tournaments, claims


@dataclass(frozen=True, slots=True)
class Reset:
    """A shard's chain restarted after a loss, as its ``audit:reset`` hash says."""

    archived_epoch: str
    archived_seq: int
    restored_at: str
    epoch: str | None
    """The new chain's epoch; None until its first record is committed."""
    began_at: str | None
    hands: int
    tournaments: int
    acknowledged_at: str | None
    redis_seq: int | None = None
    """The head Redis came back with when it was behind the archive (lost its last writes), else None (empty)."""

    def text(self) -> str:
        """``the chain restarted: epoch X archived to seq N, epoch Y began at T``."""
        began = (
            f"epoch {self.epoch[:16]} began at {self.began_at}"
            if self.epoch
            else f"the new epoch has no record yet (restored at {self.restored_at})"
        )
        back = (
            f" (Redis came back at seq {self.redis_seq}, behind the archive: its writes after that were lost)"
            if self.redis_seq is not None
            else ""
        )
        return (
            f"the chain restarted: epoch {self.archived_epoch[:16]} archived to seq {self.archived_seq}{back}, {began}"
        )


def read_reset(client: Any, keys: ShardKeys) -> Reset | None:
    """The shard's reset (its ``audit:reset`` hash), or None when its chain never restarted after a loss."""
    raw: dict[bytes, bytes] = client.hgetall(keys.audit_reset)
    if not raw:
        return None
    doc = {k.decode(): v.decode() for k, v in raw.items()}
    return Reset(
        doc.get("archived_epoch", ""),
        int(doc.get("archived_seq", "0") or 0),
        doc.get("restored_at", ""),
        doc.get("epoch"),
        doc.get("began_at"),
        int(doc.get("hands", "0") or 0),
        int(doc.get("tournaments", "0") or 0),
        doc.get("acknowledged_at"),
        int(doc["redis_seq"]) if doc.get("redis_seq") else None,
    )


def lost_tournaments(client: Any, keys: ShardKeys) -> list[str]:
    """The shard's tournaments whose ledgers Redis lost and no restore has rebuilt yet."""
    return sorted(t.decode() if isinstance(t, bytes) else str(t) for t in client.smembers(keys.tournaments_lost))


def acknowledge(client: Any, keys_of: Sequence[ShardKeys]) -> list[str]:
    """Mark each shard's reset seen by an operator (health and the gauge stop reporting it); the shards done."""
    done = []
    for keys in keys_of:
        if client.exists(keys.audit_reset):
            client.hset(keys.audit_reset, "acknowledged_at", _utc(time.time()))
            done.append(keys.shard)
    return done


def _utc(instant: float) -> str:
    return datetime.fromtimestamp(instant, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _instant(text: str) -> float:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0
