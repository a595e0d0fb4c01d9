"""A room history's betting as phh-std's ``play`` (issue 36): the event a reader builds then carries the actions,
and the replay settles it with the betting played by the one state machine (:mod:`showdown_core.betting`, through
:func:`showdown_service.decision.intake.played`), as the worker does an event with ``play``.

A reader logs, as it reads, each forced bet, action and board card (:class:`PlayLog`); :func:`with_play` turns the
log into ``play`` and the event's players into the order the hand was played (p1 the seat after the button, the
small blind; heads-up the big blind; the button last). A hand the log cannot express in phh-std is left without
``play`` (settled as before), and the log says why (:attr:`PlayLog.why_not`): a dead small blind, a straddle or a
blind posted out of position, a hand run more than once, a capped round, an exposed flop card, a game other than
hold'em and Omaha, fixed limit; so is a hand whose written betting the state machine refuses (a room's own way
with a rule: the play is tried once here, and every real PokerStars hand of ``../shared/data`` that gets a play
passes it: tests/histories/test_room_play.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from showdown_core import InvalidEvent
from showdown_messages import ShowdownEvent
from showdown_service.decision.intake import played
from showdown_service.histories.hands import validated_event

CODES: Final = {"holdem": "T", "omaha": "O", "omaha_hilo": "O/8"}
"""Contract variants -> phh-std's game letters (board games of one board that every reader here reads)."""
LIMITS: Final = {"no_limit": "N", "pot_limit": "P"}


@dataclass(slots=True)
class PlayLog:
    """One hand's betting as a reader meets it, by player name."""

    antes: dict[str, int] = field(default_factory=dict)
    blinds: dict[str, int] = field(default_factory=dict)
    small_blind: str | None = None
    big_blind: str | None = None
    actions: list[tuple[str, str]] = field(default_factory=list)
    """``(name, "f" | "cc" | "cbr N")``; ``("", "db CARDS")`` a board's new cards."""
    why_not: str = ""
    """Why the hand gets no ``play`` (``""``: it does)."""

    def refuse(self, why: str) -> None:
        self.why_not = self.why_not or why

    def blind(self, name: str, chips: int, *, big: bool) -> None:
        if (self.big_blind if big else self.small_blind) is not None or name in self.blinds:
            self.refuse("a second blind (posted out of position)")
            return
        if big:
            self.big_blind = name
        else:
            self.small_blind = name
        self.blinds[name] = chips


def with_play(  # noqa: PLR0917  # the event, its log, the stakes and where the hand is
    event: ShowdownEvent, log: PlayLog, limit: str, big_blind: int | None, button: int | None, source: str, line: int
) -> ShowdownEvent | None:
    """``event`` with its ``play`` from ``log``, its players in the order the hand was played; ``None`` (and
    ``log.why_not`` says why) when phh-std cannot express the hand here."""
    letter, game = LIMITS.get(limit), CODES.get(event.variant)
    if game is None:
        log.refuse(f"{event.variant}: play is written for hold'em and Omaha")
    if letter is None:
        log.refuse(f"{limit or 'an unnamed'} betting: play is written for no limit and pot limit")
    if big_blind is None or button is None or event.boards is not None:
        log.refuse("no big blind, no button or more than one board")
    if log.why_not or button is None or letter is None or game is None:
        return None
    seats = sorted(event.players, key=lambda p: p.seat)
    after = [p for p in seats if p.seat > button] + [p for p in seats if p.seat <= button]
    if len(after) == 2 and after[-1].seat != button:
        log.refuse("heads-up, the button is not a player of the hand")
        return None
    number = {p.player_id: i + 1 for i, p in enumerate(after)}
    order = [p.player_id for p in after]
    blinds = [log.blinds.get(name, 0) for name in order]
    if len(order) > 2 and any(blinds[2:]):
        log.refuse("a blind posted out of position")
        return None
    if len(order) == 2:
        if log.small_blind not in (None, order[1]) or log.big_blind not in (None, order[0]):
            log.refuse("heads-up blinds posted out of position")
            return None
    elif log.small_blind not in (None, order[0]) or log.big_blind not in (None, order[1]):
        log.refuse("blinds posted out of position")
        return None
    antes = [log.antes.get(name, 0) for name in order]
    if len(order) == 2:  # phh-std: heads-up, the lists name the small blind first (the button, p2)
        blinds, antes = blinds[::-1], antes[::-1]
    actions = [f"d {what}" if not name else f"p{number[name]} {what}" for name, what in log.actions]
    actions += [f"p{number[p.player_id]} sm" for p in after if p.folded and not _folded(log, p.player_id)]
    play: dict[str, Any] = {
        "variant": letter + game,
        "starting_stacks": [p.stack for p in after],
        "antes": antes,
        "blinds_or_straddles": blinds,
        "min_bet": big_blind,
        "actions": actions,
    }
    if any(antes):
        play["ante_trimming_status"] = True  # the room's antes count toward each level (its contributed)
    doc = event.model_dump(mode="json", exclude_none=True)
    doc["players"] = [p.model_dump(mode="json", exclude_none=True) for p in after]
    built = validated_event(doc | {"play": play}, source, event.hand_id, line)
    try:
        played(built)
    except InvalidEvent as exc:  # the room's writing of a rule (a capped round, a raise nobody can call)
        log.refuse(f"the betting as written is refused by the state machine: {exc.rejections[0].message}")
        return None
    return built


def _folded(log: PlayLog, name: str) -> bool:
    return (name, "f") in log.actions
