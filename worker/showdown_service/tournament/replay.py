"""A whole tournament settled in process, from JSON lines of ``{"tournament": ...}`` and ``{"event": ...}``.

This is what an auditor runs (``showdown tournament replay``) and what the
tests use as the worker's twin: the same :class:`Book`, the same settlement,
the same order, no Redis.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError

from showdown_core import InvalidEvent, InvariantViolation, settle
from showdown_messages import rejections
from showdown_messages.repeats import refuse_repeated_keys
from showdown_messages.tournaments import parse_tournament_message
from showdown_service.examples import documents
from showdown_service.intake import parse_event, to_showdown
from showdown_service.tournament.book import Applied, Book


@dataclass(slots=True)
class Refusal:
    """A line the replay could not apply: where, and why (as a worker's dead letter would say)."""

    source: str
    line: int
    code: str
    message: str


@dataclass(slots=True)
class TournamentReplay:
    """Feeds lines to one :class:`Book`, in order, keeping what each did."""

    book: Book = field(default_factory=Book)
    placements: list[dict[str, Any]] = field(default_factory=list)
    """Every placement record, in the order written (as on the standings stream)."""
    refused: list[Refusal] = field(default_factory=list)
    applied: int = 0
    results: list[Any] = field(default_factory=list)
    """Each settled hand's settlement, in order."""

    def feed(self, lines: Iterable[str], source: str = "-") -> None:
        """Apply every JSON document of ``lines`` (one a line, or pretty-printed over several), numbered by the
        line it starts on."""
        for number, document in documents(lines):
            self.feed_line(document, source, number)

    def feed_line(self, line: str | bytes, source: str = "-", number: int = 0) -> Applied | None:
        """Apply one JSON line; a line that is refused is recorded in :attr:`refused` (and ``None`` returned
        when it could not be read at all)."""
        try:
            doc = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            self.refused.append(Refusal(source, number, "malformed_json", f"not a JSON document: {exc}"))
            return None
        if not isinstance(doc, dict) or len(doc) != 1 or not ({"tournament", "event"} & doc.keys()):
            what = "an object" if isinstance(doc, dict) else type(doc).__name__
            self.refused.append(
                Refusal(
                    source, number, "not_an_object", f'{what}; each line is {{"tournament": ...}} or {{"event": ...}}'
                )
            )
            return None
        view = self.book.begin()  # a line the ledger refuses, or breaks, changes nothing
        try:
            refuse_repeated_keys(line, "line")  # before the line is taken apart (a parser keeps a repeat's last)
            if "tournament" in doc:
                applied = view.apply_message(parse_tournament_message(orjson.dumps(doc["tournament"])))
            else:
                event = parse_event(orjson.dumps(doc["event"]))
                settlement = settle(to_showdown(event))
                bounties_given = event.players[0].bounty is not None
                applied = view.apply_hand(settlement, event.hand_for_hand_round, bounties_given)
                if applied.outcome in ("settled", "untracked"):
                    self.results.append(applied.settlement or settlement)
        except ValidationError as exc:
            first = rejections(exc)[0]
            self.refused.append(Refusal(source, number, first.code, first.message))
            return None
        except InvalidEvent as exc:
            self.refused.append(Refusal(source, number, exc.code, exc.message))
            return None
        except InvariantViolation as exc:
            self.refused.append(Refusal(source, number, "invariant_violation", str(exc)))
            return None
        if applied.refused is not None:
            self.refused.append(Refusal(source, number, applied.refused.code, applied.refused.message))
        else:
            self.book.adopt(view)
            self.applied += 1
            self.placements += applied.placements
        return applied
