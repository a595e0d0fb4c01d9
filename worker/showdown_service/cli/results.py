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


def matches(result: Mapping[str, Any], args: argparse.Namespace) -> bool:
    """Whether ``result`` passes every filter of ``args`` given."""
    return (
        (args.hand is None or result.get("hand_id") == args.hand)
        and (args.table is None or result.get("table_id") == args.table)
        and (args.tournament is None or result.get("tournament_id") == args.tournament)
        and (args.player is None or any(a.get("player_id") == args.player for a in result.get("awards", ())))
    )


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


def _newest(client: Client, key: str, args: argparse.Namespace, *, high: str) -> list[tuple[bytes, Fields]]:
    """The newest ``args.count`` matching results of one stream up to ``high``, oldest first."""
    found: list[tuple[bytes, Fields]] = []
    while len(found) < args.count:
        rows = read_range(client, key, high=high, count=SCAN_CHUNK, newest_first=True)
        for entry_id, fields in rows:
            if matches(orjson.loads(fields.get(_RESULT, b"{}")), args):
                found.append((entry_id, fields))
                if len(found) == args.count:
                    break
        if len(rows) < SCAN_CHUNK:
            break
        high = f"({rows[-1][0].decode()}"
    return found[::-1]


def run(args: argparse.Namespace) -> int:
    settings = Settings()
    client = connect(settings)
    places = {settings.keys(s).results: Places(client, settings.keys(s).standings) for s in settings.shards}
    # Nothing shown means the stream is empty: follow it from its start ("$" would skip whatever
    # arrives between two reads).
    after: dict[str, bytes] = dict.fromkeys(places, b"0-0")
    for key in after:
        tip = read_range(client, key, count=1, newest_first=True)  # first: what arrives after it is followed
        if not tip:
            continue
        after[key] = tip[0][0]
        for _, fields in _newest(client, key, args, high=tip[0][0].decode()):
            _print(fields, args.json, places[key])
    for stream, rows in _followed(client, after, follow=args.follow):
        for entry_id, new in rows:
            after[stream] = entry_id
            if new is not None and matches(orjson.loads(new.get(_RESULT, b"{}")), args):
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
