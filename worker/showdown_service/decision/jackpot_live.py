"""An event's jackpot drop checked against its program, and the hand's bad beat decided (docs/jackpot.md).

A jackpot program is data, as a rake schedule is: one JSON file a program
(``format`` ``showdown.jackpot_program``, ``format_version`` 1) shipped under
``data/jackpot/`` (GGPoker's Bad Beat Jackpot for hold'em and PLO). An event
naming ``jackpot`` is settled as always, then:

* a program no worker knows, or one that does not run in the hand's game, is
  refused ``unknown_jackpot_program``; a program file whose qualifier names a
  hand one of its games cannot make (five of a kind, short deck's 2222, any
  high hand in razz) is refused ``jackpot_qualifier_impossible`` when it is
  read (:mod:`showdown_core.jackpot_qualifier`), one that cannot be run
  otherwise ``bad_jackpot_program``;
* the drop must be the program's from this pot (:func:`showdown_core.jackpot.check_drop`:
  ``jackpot_drop_mismatch``, naming both figures);
* the hand's bad beat, if it is one (the first board, the live seats' hands),
  with each seat's role and the role's share of the fund, goes in the
  result's ``jackpot`` section.

What a bad beat pays is decided from the fund's balance, a ledger's: the
shares here are parts per million of it. The decision step
(:func:`showdown_service.decision.decide.decide`) takes the hand through its
fund (:func:`showdown_core.jackpot.take`), as read with the audit head, and the
result then gives each role's amount and the fund before and after.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from importlib import resources
from typing import Any, Final

from showdown_core import InvalidEvent, Settlement
from showdown_core.jackpot import JackpotProgram, bad_beat, check_drop, outcome
from showdown_core.jackpot_qualifier import qualifier as qualifier_in
from showdown_messages import ShowdownEvent

FORMAT: Final = "showdown.jackpot_program"
SHIPPED: Final = "data/jackpot"
"""Where the shipped programs are, inside the ``showdown_service`` package."""


def read_program(text: str, name: str) -> tuple[JackpotProgram, frozenset[str]]:
    """A program file's program and the variants it runs in; :class:`InvalidEvent` ``bad_jackpot_program``
    naming the file and the field for anything else."""
    try:
        doc: Any = json.loads(text)
        if doc.get("format") != FORMAT or doc.get("format_version") != 1:
            raise ValueError(f"format: expected {FORMAT!r} version 1")
        drop, qualifier, shares = doc["drop"], doc["qualifier"], doc["shares_ppm"]
        variants = frozenset(str(v) for v in doc["variants"])
        judged = qualifier_in(str(qualifier["minimum"]), variants)
        program = JackpotProgram(
            doc["id"],
            int(drop["big_blinds"]),
            int(drop["minimum_pot_big_blinds"]),
            judged.minimum,
            int(shares["loser"]),
            int(shares["winner"]),
            int(shares["other"]),
            bool(qualifier.get("both_hole_cards", True)),
            judged.omaha,
            judged.ranking,
        )
    except InvalidEvent as exc:  # its own code (jackpot_qualifier_impossible, bad_jackpot_program), naming the file
        raise InvalidEvent.of(exc.code, name, exc.message) from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidEvent.of("bad_jackpot_program", name, f"not a jackpot program: {exc}") from None
    return program, variants


@cache
def shipped_programs() -> Mapping[str, tuple[JackpotProgram, frozenset[str]]]:
    """Every program under ``data/jackpot/``, by id."""
    out: dict[str, tuple[JackpotProgram, frozenset[str]]] = {}
    for item in sorted(resources.files("showdown_service").joinpath(SHIPPED).iterdir(), key=lambda p: p.name):
        if item.name.endswith(".json"):
            program, variants = read_program(item.read_text(encoding="utf-8"), f"{SHIPPED}/{item.name}")
            out[program.program_id] = (program, variants)
    return out


def apply_jackpot(
    event: ShowdownEvent,
    settlement: Settlement,
    programs: Mapping[str, tuple[JackpotProgram, frozenset[str]]] | None = None,
) -> Settlement:
    """``settlement`` with the event's jackpot: the drop checked, the bad beat decided."""
    jackpot, stakes = event.jackpot, event.stakes
    assert jackpot is not None
    assert stakes is not None  # the contract requires stakes with a jackpot
    known = shipped_programs() if programs is None else programs
    found = known.get(jackpot.program)
    if found is None or event.variant not in found[1]:
        why = "no worker knows it" if found is None else f"it does not run in {event.variant}"
        raise InvalidEvent.of("unknown_jackpot_program", "jackpot.program", f"{jackpot.program!r}: {why}")
    program = found[0]
    showdown = settlement.showdown
    pot = sum(p.amount for p in settlement.pots)
    drop = check_drop(program, jackpot.drop, pot, showdown.rake, stakes.big_blind)
    live = [(s.seat, s.cards) for s in showdown.seats if not s.folded and s.cards]
    beat = bad_beat(program, showdown.runs[0], live) if len(live) > 1 else None
    dealt = [s.seat for s in showdown.seats]
    taken = outcome(program, jackpot.jackpot_id, drop, beat, dealt)
    if jackpot.seed is not None:
        taken = replace(taken, seed=jackpot.seed)
    return settlement._replace(jackpot=taken)
