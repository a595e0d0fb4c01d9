"""One answer to "a tournament's standings": the live ledger, then the expired ledger's places in the archive, then
a lost ledger rebuilt from the archive (:class:`StandingsReader`), for the read API and ``showdown tournament
standings`` alike.

The rules, in order:

1. **The shard**: the registry's (:mod:`~showdown_service.decision.routing`), else the first configured shard
   whose ledger is in Redis (one opened before the registry): the read API's. ``showdown tournament standings``
   searches instead (``search``): the first shard whose ledger HGETALL returns (all the reader ACL user may run:
   deploy/redis), else, Redis having lost even its registry, the first shard whose archive holds the tournament's
   ledger. The read API does not scan the archive for an id no shard names (any client could make it read every
   file): ``unknown_tournament``.
2. **The ledger**: Redis's; a ledger Redis lost with its data is rebuilt from the archive's entries
   (:func:`~showdown_service.archive.ledger_restore.rebuild`): a finished one is answered from it, a running one
   is refused ``ledger_lost`` until ``showdown tournament restore`` writes it back (what the workers do with its
   entries meanwhile: they refuse them ``ledger_lost``).
3. **The places**: an expired ledger's are the archive's placement records
   (:func:`~showdown_service.archive.standings.archived_standings`), never guessed; else the ledger's own.

Refusals are :class:`StandingsRefused` with a code: ``unknown_tournament``, ``archive_unavailable``,
``archive_incomplete``, ``ledger_lost``. What the archive answered is kept (``kept`` tournaments each): it never
changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from showdown_core.errors import ShowdownError
from showdown_core.tournament import Book, Entry, Ledger
from showdown_service.archive.ledger_restore import RestoreError, rebuild
from showdown_service.archive.standings import StandingsUnavailable, archived_standings
from showdown_service.decision.routing import registry_key
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import Client
from showdown_service.storage.lookup import archive_exists
from showdown_service.worker.ledger import read_book

KEPT = 256
"""Tournaments whose standings read from the archive are kept in memory (a floor page polls)."""


class StandingsRefused(ShowdownError):
    """The standings cannot be answered: ``code`` (``unknown_tournament``, ``archive_unavailable``,
    ``archive_incomplete``, ``ledger_lost``) and why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Standings:
    """A tournament's standings as found: its shard, the book holding its ledger, the placement objects of the
    finished entries and the entries still playing."""

    tournament_id: str
    shard: str
    book: Book
    ledger: Ledger
    finished: list[dict[str, Any]]
    playing: list[Entry]
    archived: bool
    """Whether ``finished`` was read from the archive (an expired ledger: then no entry is playing)."""


class StandingsReader:
    """The one standings lookup (see the module's docstring), keeping what the archive answered."""

    def __init__(self, settings: Settings, client: Client, *, kept: int = KEPT) -> None:
        self.settings = settings
        self.client = client
        self.kept = kept
        self.archived: dict[tuple[str, str], list[dict[str, Any]]] = {}
        """Expired tournaments' placement objects read from the archive, by (shard, tournament id)."""
        self.rebuilt_books: dict[tuple[str, str], Book] = {}
        """Finished tournaments whose ledgers Redis lost, rebuilt from the archive, by (shard, tournament id)."""

    def shard_of(self, tournament_id: str) -> str | None:
        """The shard holding the tournament in Redis: the registry's, else the first configured shard with its
        ledger; None when neither names one."""
        raw = cast(bytes | None, self.client.hget(registry_key(self.settings.key_prefix), tournament_id))
        held = raw.decode() if raw is not None else None
        if held is not None and held in self.settings.shards:
            return held
        for shard in self.settings.shards:
            if self.client.exists(self.settings.keys(shard).tournament(tournament_id)):
                return shard
        return None

    def read(self, tournament_id: str, *, search: bool = False) -> Standings:
        """The tournament's standings; :class:`StandingsRefused` when they cannot be answered. ``search``: the
        shard found by each shard's ledger (HGETALL only), then by each shard's archive."""
        shard, book = self._searched(tournament_id) if search else self._held(tournament_id)
        ledger = book.ledgers[tournament_id]
        assert ledger is not None
        if ledger.expired:  # its places are in the archive (docs/archive.md): read there, never guessed
            finished = self.archived_standings(shard, tournament_id, ledger)
            return Standings(tournament_id, shard, book, ledger, finished, [], archived=True)
        finished, playing = book.standings(tournament_id)
        return Standings(tournament_id, shard, book, ledger, finished, playing, archived=False)

    def _held(self, tournament_id: str) -> tuple[str, Book]:
        """The shard :meth:`shard_of` names and its ledger: Redis's, else (Redis lost even its short ledger)
        rebuilt."""
        shard = self.shard_of(tournament_id)
        if shard is None:
            raise _unknown(tournament_id)
        held = read_book(self.client, self.settings.keys(shard), tournament_id)
        if held is None or held.ledgers.get(tournament_id) is None:
            return shard, self.rebuilt(shard, tournament_id)
        return shard, held

    def _searched(self, tournament_id: str) -> tuple[str, Book]:
        """The first shard whose ledger Redis holds, else the first whose archive holds it, and its ledger."""
        for shard in self.settings.shards:
            book = read_book(self.client, self.settings.keys(shard), tournament_id)
            if book is not None:
                return shard, book
        for shard in self.settings.shards:  # Redis lost even its short ledger: rebuilt from the archive, in process
            try:
                return shard, self.rebuilt(shard, tournament_id)
            except StandingsRefused as exc:
                if exc.code != "unknown_tournament":
                    raise
        raise _unknown(tournament_id)

    def rebuilt(self, shard: str, tournament_id: str) -> Book:
        """A tournament on ``shard`` whose ledger Redis lost (a loss, issue 33): a finished one's ledger rebuilt
        from the archive's entries (kept once read: it never changes); a running one is refused ``ledger_lost``
        until ``showdown tournament restore`` writes its ledger back; ``unknown_tournament`` when the archive
        never knew it."""
        found = self.rebuilt_books.get((shard, tournament_id))
        if found is not None:
            return found
        if not archive_exists(self.settings.archive_url):
            raise _unknown(tournament_id)
        try:
            rebuilt = rebuild(self.settings, shard, tournament_id)
        except RestoreError as exc:
            if "holds no ledger" in str(exc):
                raise _unknown(tournament_id) from exc
            raise StandingsRefused("archive_unavailable", str(exc)) from exc
        if not rebuilt.ledger.over:
            raise StandingsRefused(
                "ledger_lost",
                f"Redis lost tournament {tournament_id!r}'s ledger on shard {shard} and it is still running: "
                f"`showdown tournament restore {tournament_id}` rebuilds it from the archive",
            )
        book = Book({tournament_id: rebuilt.ledger})
        _keep(self.rebuilt_books, (shard, tournament_id), book, self.kept)
        return book

    def archived_standings(self, shard: str, tournament_id: str, ledger: Ledger) -> list[dict[str, Any]]:
        """The placement objects of an expired ledger, from the archive (kept once read: they never change)."""
        key = (shard, tournament_id)
        found = self.archived.get(key)
        if found is None:
            try:
                found = archived_standings(self.settings, shard, tournament_id, ledger)
            except StandingsUnavailable as exc:
                raise StandingsRefused(exc.code, exc.message) from exc
            _keep(self.archived, key, found, self.kept)
        return found


def _unknown(tournament_id: str) -> StandingsRefused:
    return StandingsRefused("unknown_tournament", f"no shard holds tournament {tournament_id!r}")


def _keep(kept: dict[tuple[str, str], Any], key: tuple[str, str], value: Any, most: int) -> None:
    if len(kept) >= most:
        del kept[next(iter(kept))]  # the oldest read
    kept[key] = value
