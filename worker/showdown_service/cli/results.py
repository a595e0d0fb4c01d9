"""``showdown results``: settled hands, readably (each bust with its place and the bounty it paid), filtered.

``--hand``, ``--player``, ``--table`` and ``--tournament`` keep the results
matching all of them (a player: any seat of the hand's awards). The newest
``--count`` matches of each shard are shown, oldest first; ``--follow`` then
prints matching results as they are committed.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from showdown_messages.protocol import PLACEMENT_FIELD, RESULT_FIELD
from showdown_service.cli.help import positive_int
from showdown_service.decision.render import describe_result
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import Client, connect
from showdown_service.infra.streams import Fields, read_new, read_range
from showdown_service.read.pages import ResultFilter, newest

SCAN_CHUNK = 1000
_RESULT = RESULT_FIELD.encode()
_PLACEMENT = PLACEMENT_FIELD.encode()


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``results`` to the ``showdown`` parser."""
    r = commands.add_parser("results", help="show settled hands readably (places, bounties), filtered")
    r.add_argument("--follow", "-f", action="store_true", help="keep printing new results as they come")
    r.add_argument("--count", type=positive_int, default=20, help="how many recent results to show first (default 20)")
    r.add_argument("--json", action="store_true", help="print the ShowdownResult JSON")
    r.add_argument("--hand", metavar="ID", help="only this hand_id")
    r.add_argument("--player", metavar="ID", help="only hands this player_id sat in")
    r.add_argument("--table", metavar="ID", help="only hands of this table_id")
    r.add_argument("--tournament", metavar="ID", help="only hands of this tournament_id")
    r.set_defaults(run=run)


def wanted(args: argparse.Namespace) -> ResultFilter:
    """The results filter ``args`` give (the read API's own, :class:`~showdown_service.read.pages.ResultFilter`)."""
    return ResultFilter(hand_id=args.hand, player_id=args.player, table_id=args.table, tournament_id=args.tournament)


class Places:
    """The newest placement of each (tournament, player) on a shard's standings stream, read as needed."""

    def __init__(self, client: Client, key: str) -> None:
        self.client = client
        self.key = key
        self.after = "-"
        self.by_tournament: dict[str, dict[str, dict[str, Any]]] = {}

    def of(self, result: Mapping[str, Any]) -> dict[str, dict[str, Any]] | None:
        """Player id -> placement in ``result``'s tournament (None for a hand of no tournament)."""
        tournament = result.get("tournament_id")
        if tournament is None or not result.get("busts"):
            return None
        if any(b["player_id"] not in self.by_tournament.get(tournament, {}) for b in result["busts"]):
            self._read()  # a bust's placement is committed with it (or at its round's end): read what is new
        return self.by_tournament.get(tournament, {})

    def _read(self) -> None:
        while True:
            rows = read_range(self.client, self.key, low=self.after, count=SCAN_CHUNK)
            for _, fields in rows:
                placement = orjson.loads(fields.get(_PLACEMENT, b"{}"))
                by_player = self.by_tournament.setdefault(str(placement.get("tournament_id")), {})
                by_player[str(placement.get("player_id"))] = placement
            if rows:
                self.after = f"({rows[-1][0].decode()}"
            if len(rows) < SCAN_CHUNK:
                return


def run(args: argparse.Namespace) -> int:
    settings = Settings()
    client = connect(settings)
    places = {settings.keys(s).results: Places(client, settings.keys(s).standings) for s in settings.shards}
    keep = wanted(args)
    # Nothing shown means the stream is empty: follow it from its start ("$" would skip whatever
    # arrives between two reads).
    after: dict[str, bytes] = dict.fromkeys(places, b"0-0")
    for key in after:
        tip = read_range(client, key, count=1, newest_first=True)  # first: what arrives after it is followed
        if not tip:
            continue
        after[key] = tip[0][0]
        for _, fields in newest(client, key, keep, args.count, high=tip[0][0].decode()):
            _print(fields, args.json, places[key])
    for stream, rows in _followed(client, after, follow=args.follow):
        for entry_id, new in rows:
            after[stream] = entry_id
            if new is not None and keep.matches(orjson.loads(new.get(_RESULT, b"{}"))):
                _print(new, args.json, places[stream])
    return 0


def _followed(
    client: Client, after: dict[str, bytes], *, follow: bool
) -> Iterator[tuple[str, list[tuple[bytes, Fields | None]]]]:
    while follow:
        for stream, rows in read_new(client, after, block=1000):
            yield stream.decode(), rows


def _print(fields: Fields, as_json: bool, places: Places) -> None:
    raw = fields.get(_RESULT, b"{}")
    if as_json:
        print(raw.decode(), flush=True)  # noqa: T201 - the command's output
        return
    result = orjson.loads(raw)
    print(describe_result(result, places.of(result)), flush=True)  # noqa: T201 - the command's output
