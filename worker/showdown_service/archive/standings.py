"""The standings of a tournament whose ledger expired, from the archive: exactly what the full ledger answered.

A finished ledger expires (:func:`showdown_service.worker.ledger.expire`)
once the entry that finished it is archived: Redis then keeps its ``rules``
(payouts, counters, the deal, the mystery envelopes left) and each entry's
figures at entry, but no places, prizes or bounty cash. Those are in the
archive: every entry of a finished tournament wrote exactly one placement
record when it finished (eliminated while registration was open: without a
place; else placed, alone or tied), and no figure of a record changes after
it is written (an entry out of play wins nothing more). So the placement
objects :meth:`showdown_core.tournament.Book.standings` rendered from the full
ledger are the archived records, ordered as it orders them: without a place
last, then by place, then by registration order. Registration order is the
order of the tournament's ``entry`` messages the ledger took (outcome
``settled``) on its shard's chain, by ``seq``: the ledger numbered entries in
that order (``next_order``).

Nothing is guessed: the archive must hold, for the ledger's shard, one
settled ``entry`` message and one placement record for each entry the
expired ledger keeps, and as many entries as the ledger registered
(``next_order - 1``); otherwise :class:`StandingsUnavailable` says what is
missing (``archive_incomplete``). An archive that does not exist or cannot be
read is ``archive_unavailable``, naming why.
"""

from __future__ import annotations

from typing import Any

import orjson

from showdown_core.errors import ShowdownError
from showdown_core.tournament import Ledger
from showdown_service.infra.config import Settings

ROWS_SQL = """
SELECT seq, outcome, event_field, event, standings FROM archive_rows
WHERE shard = ? AND tournament_id = ?
  AND (standings IS NOT NULL OR (outcome = 'settled' AND event_field = 'tournament'))
ORDER BY seq
"""
"""The tournament's rows on one shard that matter here: those that wrote placement records, and the tournament
messages the ledger took (its ``entry`` messages among them), in chain order."""


class StandingsUnavailable(ShowdownError):
    """The archive cannot answer an expired tournament's standings: ``code`` (``archive_unavailable``: no archive
    at the URL, or it cannot be read; ``archive_incomplete``: it lacks what the ledger says it must hold) and why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def archived_standings(settings: Settings, shard: str, tournament_id: str, ledger: Ledger) -> list[dict[str, Any]]:
    """The placement objects of the expired ``ledger`` (of ``tournament_id`` on ``shard``), from the archive at
    ``SHOWDOWN_ARCHIVE_URL``, in :meth:`Book.standings`'s order; raises :class:`StandingsUnavailable`."""
    from showdown_service.storage.lookup import archive_exists  # noqa: PLC0415 - light; the rest below is not

    url = settings.archive_url
    if not archive_exists(url):
        raise StandingsUnavailable(
            "archive_unavailable",
            f"tournament {tournament_id!r} finished and its ledger expired (its places are kept in the archive), "
            f"but there is no archive at SHOWDOWN_ARCHIVE_URL={url!r}: point it at the archiver's archive",
        )
    rows = _rows(settings, shard, tournament_id)
    return ordered(tournament_id, ledger, rows, where=f"the archive at {url!r} (shard {shard!r})")


def _rows(settings: Settings, shard: str, tournament_id: str) -> list[tuple[Any, ...]]:
    import duckdb  # noqa: PLC0415 - pyarrow and DuckDB on first use
    from pyarrow.lib import ArrowException  # noqa: PLC0415

    from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415
    from showdown_service.storage.recall import connect  # noqa: PLC0415

    url = settings.archive_url
    try:
        con = connect(open_store(url, settings))
        try:
            return con.execute(ROWS_SQL, [shard, tournament_id]).fetchall()
        finally:
            con.close()
    except (ArchiveError, ArrowException, OSError, duckdb.Error) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise StandingsUnavailable(
            "archive_unavailable",
            f"tournament {tournament_id!r} finished and its ledger expired, and the archive at {url!r} cannot be "
            f"read: {why}",
        ) from exc


def ordered(tournament_id: str, ledger: Ledger, rows: list[tuple[Any, ...]], *, where: str) -> list[dict[str, Any]]:
    """The placement records of ``rows`` (``seq, outcome, event_field, event, standings``, in seq order) in the
    standings' order, checked against the expired ``ledger``'s entries."""
    order: dict[tuple[str, int], int] = {}
    placed: dict[tuple[str, int], dict[str, Any]] = {}

    def incomplete(what: str) -> StandingsUnavailable:
        return StandingsUnavailable("archive_incomplete", f"tournament {tournament_id!r}: {where} {what}")

    for seq, outcome, event_field, event, standings in rows:
        if outcome == "settled" and event_field == "tournament" and event is not None:
            message = orjson.loads(event)
            if message.get("type") == "entry":
                key = (str(message["player_id"]), int(message["entry"]))
                if key in order:
                    raise incomplete(f"holds entry {key[1]} of {key[0]!r} registered twice (seq {seq})")
                order[key] = len(order) + 1
        for record in orjson.loads(standings) if standings else ():
            key = (str(record["player_id"]), int(record["entry"]))
            if record.get("tournament_id") != tournament_id:
                continue
            if key in placed:
                raise incomplete(f"holds two placement records of entry {key[1]} of {key[0]!r} (seq {seq})")
            placed[key] = record
    kept = set(ledger.entries)
    registered = ledger.next_order - 1
    for name, found in (("settled entry message", set(order)), ("placement record", set(placed))):
        missing = sorted(kept - found)
        if missing:
            player, number = missing[0]
            raise incomplete(
                f"lacks the {name} of entry {number} of {player!r} ({len(missing)} of {len(kept)} entries lack one): "
                "a file of the archive is missing or unreadable"
            )
        extra = sorted(found - kept)
        if extra:
            player, number = extra[0]
            raise incomplete(f"holds a {name} of entry {number} of {player!r}, which the expired ledger does not keep")
    if len(order) != registered:
        raise incomplete(f"holds {len(order)} registrations but the ledger registered {registered}")
    return [
        placed[key]
        for key in sorted(placed, key=lambda k: (placed[k]["place"] is None, placed[k]["place"] or 0, order[k]))
    ]
