"""``showdown tournament restore ID``: a tournament's ledger rebuilt from the archive after Redis lost it.

A Redis that came back without its data has no ledgers: the workers refuse
the hands and messages of every tournament the archive knows on the shard
(``ledger_lost``, see :mod:`showdown_service.worker.restore`) until this rebuilds
the ledger. It reads the tournament's archived entries of every chain of its
shard (oldest epoch first, each in seq order) and replays them through the
worker's own preparation and decision (:func:`~showdown_service.archive.resettle.prepare_row`,
:func:`~showdown_service.decision.decide.decide`, each at its record's ``at``, by its
``worker``, chained on its predecessor), applying each decision's ledger
writes (:func:`~showdown_service.worker.ledger.writes`) as the commit
script applied them. Every re-decided record must hash as the archived one:
otherwise nothing is written (the archive and this code disagree). Entries
refused ``ledger_lost`` changed no ledger and are passed over.

The result is the ledger's hash byte for byte as it stood at the
tournament's last archived entry (not expired: a finished tournament's full
ledger, which the archiver may expire again). It is written in one script,
only where the tournament has no ledger, and the tournament leaves the
shard's ``tournaments:lost`` set in the same step: its entries settle again.
Then requeue its ``ledger_lost`` dead letters, in order
(``showdown dead-letters --code ledger_lost --tournament ID --requeue``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final

import orjson

from showdown_core.tournament import Book, Ledger
from showdown_service.decision.audit import Head, as_written
from showdown_service.decision.decide import LEDGER_LOST
from showdown_service.decision.twin import Twin
from showdown_service.infra.config import Settings, ShardKeys
from showdown_service.worker.ledger import decode_ledger, writes

RESTORE_LUA: Final = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
for i = 2, #ARGV, 400 do
  redis.call('HSET', KEYS[1], unpack(ARGV, i, math.min(i + 399, #ARGV)))
end
redis.call('SREM', KEYS[2], ARGV[1])
if cjson.decode(redis.call('HGET', KEYS[1], 'rules'))['over'] then
  redis.call('SREM', KEYS[3], ARGV[1])
else
  redis.call('SADD', KEYS[3], ARGV[1])
end
return 1
"""
"""KEYS: the tournament's hash, the shard's lost set, its open set; ARGV: the tournament id, then the ledger's fields
and values. Writes the ledger only where there is none, and takes the tournament out of the lost set (into the open
set while it is not over). Returns 1 if written, 0 if a ledger was there."""


class RestoreError(Exception):
    """The ledger cannot be rebuilt: the archive lacks the tournament, cannot be read, or re-decides otherwise."""


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """A tournament's ledger as the archive's entries leave it."""

    fields: dict[str, str]
    """Its hash's fields and values, as the commits wrote them."""
    ledger: Ledger
    entries: int
    """Archived entries replayed."""
    last_seq: int
    """The seq (in its chain) of the last one."""


def rebuild(settings: Settings, shard: str, tournament_id: str) -> Rebuilt:
    """Replay ``tournament_id``'s archived entries on ``shard`` (``SHOWDOWN_ARCHIVE_URL``) into its ledger; raises
    :class:`RestoreError`."""
    from pyarrow.lib import ArrowException  # noqa: PLC0415 - pyarrow only when asked

    from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415
    from showdown_service.storage.lookup import archive_exists  # noqa: PLC0415
    from showdown_service.worker.restore import archived_chains  # noqa: PLC0415

    url = settings.archive_url
    if not archive_exists(url):
        raise RestoreError(f"no archive at SHOWDOWN_ARCHIVE_URL={url!r}: point it at the archiver's archive")
    try:
        store = open_store(url, settings)
        rows = [row for chain in archived_chains(store, shard) for row in _rows(store, chain.files, tournament_id)]
    except (ArchiveError, ArrowException, OSError) as exc:
        raise RestoreError(f"the archive at {url!r} cannot be read: {exc}") from exc
    return replay_rows(settings, tournament_id, rows)


def _rows(store: Any, files: tuple[str, ...], tournament_id: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq  # noqa: PLC0415

    out: list[dict[str, Any]] = []
    for path in files:
        with store.fs.open_input_file(path) as handle:
            table = pq.read_table(handle, filters=[("tournament_id", "=", tournament_id)])
        out += sorted(table.to_pylist(), key=lambda row: int(row["seq"]))
    return out


def replay_rows(settings: Settings, tournament_id: str, rows: list[dict[str, Any]]) -> Rebuilt:
    """The ledger ``rows`` (the tournament's archived rows, in chain order) leave; raises :class:`RestoreError`."""
    from showdown_service.archive.resettle import prepare_row  # noqa: PLC0415 - light, but pulls in the routing

    book = Book({}, in_place=True)
    twin = Twin(book, dedupe_ttl_s=settings.dedupe_ttl_s)
    fields: dict[str, str] = {}
    replayed, last_seq = 0, 0
    commit = Commit(book)
    for row in rows:
        record = orjson.loads(row["audit"]) if row.get("audit") else None
        if not isinstance(record, dict) or record.get("code") == LEDGER_LOST:
            continue
        seq = int(record.get("seq", 0))
        if row.get("event") is None and row.get("event_bytes") is None:
            raise RestoreError(
                f"seq {seq} (entry {record.get('entry_id')}): the archive lacks its event (trimmed from Redis "
                "before the archiver read it): the ledger cannot be rebuilt from it"
            )
        prepared = prepare_row(row, record, settings)
        if record.get("code") == "invariant_violation":  # refused as the worker refused it, the ledger untouched
            prepared = replace(prepared, code="invariant_violation", message=str(record.get("message") or ""),
                               result=None, result_sha256=None, settlement=None)  # fmt: skip
        at = str(record.get("at") or "")
        if (str(record.get("worker", "")), at) != commit.batch:  # the worker's next commit: its writes as it wrote them
            fields.update(commit.written())
            commit.batch = (str(record.get("worker", "")), at)
        head = Head(seq - 1, str(record.get("prev_hash", "")))
        decided = twin.decide([prepared], worker=str(record.get("worker", "")), at=at, now=_instant(at), head=head)
        if twin.broken:  # the twin refused the entry as the worker would; a restore rebuilds nothing from a bug
            reason = twin.broken[0].reason
            raise RestoreError(f"seq {seq}: the ledger breaks an invariant re-deciding it ({reason})")
        decision = decided.decisions[0]
        if as_written(decision.record, record).get("hash") != record.get("hash"):  # an older record: without ids
            raise RestoreError(
                f"seq {seq} (entry {record.get('entry_id')}): re-decided, its audit record differs from the archived "
                f"one (archived outcome {record.get('outcome')}, code {record.get('code')}; re-decided "
                f"{decision.outcome}, {decision.code}): nothing restored"
            )
        if decided.book is not None:
            commit.add(decided.book)
        replayed += 1
        last_seq = seq
    fields.update(commit.written())
    ledger = book.ledgers.get(tournament_id)
    if ledger is None:
        raise RestoreError(f"the archive holds no ledger of tournament {tournament_id!r} (no `open` it took)")
    decoded = decode_ledger({name: value.encode() for name, value in fields.items()})
    assert decoded is not None
    return Rebuilt(fields, ledger, replayed, last_seq)


class Commit:
    """What one of the worker's commits changed in the ledgers: the changes of its entries' decisions, together.

    The commit script writes each changed entry once, as the commit leaves it (:func:`writes`): an entry's ``e:``
    array carries its chips at the end of the commit (its ``c:`` field wins over them when read). So the entries of
    one commit (one batch: the same ``worker`` and ``at`` in their records) are written together, and the hash is
    the worker's byte for byte.
    """

    def __init__(self, book: Book) -> None:
        self.book = book
        self.batch: tuple[str, str] | None = None
        self.changed: dict[str, set[tuple[str, int]]] = {}
        self.meta: set[str] = set()
        self.chips: dict[str, list[Any]] = {}

    def add(self, view: Book) -> None:
        """One decision's changes (``view``: the in-place book, its record of changes since its ``begin``)."""
        for tid, keys in view.changed.items():
            self.changed.setdefault(tid, set()).update(keys)
        self.meta |= view.meta_changed
        for tid, entries in view.chips_changed.items():
            self.chips.setdefault(tid, []).extend(entries)

    def written(self) -> dict[str, str]:
        """The fields the commit wrote (every tournament's: the rows are one tournament's); then a new commit."""
        view = Book(self.book.ledgers)
        view.changed, view.meta_changed, view.chips_changed = self.changed, self.meta, self.chips
        out: dict[str, str] = {}
        for _, text in writes(view):
            flat = orjson.loads(text)
            out.update(zip(flat[::2], flat[1::2], strict=True))
        self.changed, self.meta, self.chips = {}, set(), {}
        return out


def restore(client: Any, keys: ShardKeys, rebuilt: Rebuilt, tournament_id: str) -> bool:
    """Write ``rebuilt`` as ``tournament_id``'s ledger where it has none, and take it out of the lost set; False when a
    ledger is there already (nothing written)."""
    script = client.register_script(RESTORE_LUA)
    args = [tournament_id, *(x for pair in sorted(rebuilt.fields.items()) for x in pair)]
    return bool(script(keys=[keys.tournament(tournament_id), keys.tournaments_lost, keys.tournaments_open], args=args))


def _instant(text: str) -> float:
    from datetime import datetime  # noqa: PLC0415

    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0
