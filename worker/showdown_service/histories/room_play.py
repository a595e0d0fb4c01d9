"""A room history's betting as phh-std's ``play`` (issue 36): the event a reader builds then carries the actions,
and the replay settles it with the betting played by the one state machine (:mod:`showdown_core.betting`, through
:func:`showdown_service.decision.intake.played`), as the worker does an event with ``play``.

A reader logs, as it reads, each forced bet, action and board card (:class:`PlayLog`); :func:`with_play` turns the
log into ``play`` and the event's players into the order the hand was played (board and draw games: p1 the seat
after the button, the small blind; heads-up the big blind; the button last; stud: seat order, as the up cards
decide who opens each street and the actions say who). Every game the state machine plays is written: hold'em,
short deck, Omaha (Hi/Lo), seven-card stud (Hi/Lo), razz, five-card draw, deuce-to-seven single and triple draw,
badugi; no limit, pot limit and fixed limit (``small_bet`` and ``big_bet``; stud's ``bring_in``, written ``pN pb``;
a draw game's own cards dealt unknown, ``d dh pN ??????????``, each discard ``pN sd ????`` and its replacements
dealt unknown too; in stud and draw games the hands shown at a showdown are written last, ``pN sm CARDS``, as
their deals leave them unknown).

A hand the log cannot express in phh-std is left without ``play`` (settled as before), and the log says why
(:attr:`PlayLog.why_not`): a dead small blind, a straddle or a blind posted out of position, a hand run more than
once, a capped round, an exposed flop card, a stud hand whose deck ran out (a shared card); so is a hand whose
written betting the state machine refuses (a room's own way with a rule: the play is tried once here, and every
real PokerStars hand of ``../shared/data`` that gets a play passes it: tests/histories/test_room_play.py). The
replay's summary counts the hands settled with their betting played and those without, by
:attr:`PlayLog.why_not` (:mod:`.report`).

The readers that tell a :class:`~.builder.HandBuilder` what each line means (the smaller rooms') build on a
:class:`PlayBuilder` instead: it logs each call, check, bet, raise, fold, ante and board as the builder meets it,
the reader saying only which pays are the blinds (:meth:`PlayBuilder.blind`), and :func:`with_room_play` gives the
record its ``play`` (tests/histories/test_room_play_small_rooms.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from showdown_core import InvalidEvent
from showdown_messages import PlayerIn, ShowdownEvent
from showdown_service.decision.intake import played
from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.hands import HandRecord, validated_event

CODES: Final = {
    "holdem": "T",
    "short_deck": "S",
    "omaha": "O",
    "omaha_hilo": "O/8",
    "stud": "7S",
    "stud_hilo": "7S/8",
    "razz": "R",
    "five_card_draw": "5CD",
    "badugi": "B",
}
"""Contract variants -> phh-std's game letters (deuce-to-seven by its draws: :data:`DEUCE_TO_SEVEN`)."""
DEUCE_TO_SEVEN: Final = {1: "2L1D", 3: "2L3D"}
"""Deuce-to-seven lowball by its draws: single draw, triple draw."""
LIMITS: Final = {"no_limit": "N", "pot_limit": "P", "fixed_limit": "F"}
STUD: Final = frozenset({"stud", "stud_hilo", "razz"})
DRAW_CARDS: Final = {"five_card_draw": 5, "deuce_to_seven": 5, "badugi": 4}
"""Draw games: the own cards each player is dealt."""
REFUSED_BY_MACHINE: Final = "the betting as written is refused by the state machine"
""":attr:`PlayLog.why_not`'s beginning when the state machine refuses the written betting (then its rule's code)."""
_LIMIT_WORDS: Final = re.compile(r"\b(?:(no)[ _]limit|(pot)[ _]limit|(?:fixed[ _])?limit|(n|p|f)l)\b", re.IGNORECASE)


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
    """Why the hand gets no ``play`` (``""``: it does): a short reason, the same for every hand refused alike (the
    replay's summary counts hands by it)."""
    detail: str = ""
    """What exactly was refused, when :attr:`why_not` alone does not say (the state machine's message)."""

    def refuse(self, why: str, detail: str = "") -> None:
        if not self.why_not:
            self.why_not, self.detail = why, detail

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
    event: ShowdownEvent,
    log: PlayLog,
    limit: str,
    big_blind: int | None,
    button: int | None,
    source: str,
    line: int,
    *,
    small_bet: int | None = None,
    big_bet: int | None = None,
    bring_in: int | None = None,
    draws: int | None = None,
) -> ShowdownEvent | None:
    """``event`` with its ``play`` from ``log``, its players in the order the hand was played; ``None`` (and
    ``log.why_not`` says why) when phh-std cannot express the hand here.

    Fixed limit needs ``small_bet`` and ``big_bet`` (``big_blind`` is then the small bet, as the histories write
    it); stud needs ``bring_in`` (and no button or blinds); deuce-to-seven needs ``draws`` (1 or 3)."""
    variant, stud = event.variant, event.variant in STUD
    letter = LIMITS.get(limit)
    game = DEUCE_TO_SEVEN.get(draws or 0) if variant == "deuce_to_seven" else CODES.get(variant)
    if game is None:
        log.refuse(f"{variant}: no phh-std game code for it here (deuce-to-seven needs its draws)")
    if letter is None:
        log.refuse(f"{limit or 'an unnamed'} betting: play is written for no limit, pot limit and fixed limit")
    elif letter == "F" and not (small_bet and big_bet):
        log.refuse("fixed limit without its small bet and big bet")
    if stud and not bring_in:
        log.refuse("stud without its bring-in")
    if not stud and (big_blind is None or button is None):
        log.refuse("no big blind or no button")
    if event.boards is not None:
        log.refuse("more than one board")
    if log.why_not or letter is None or game is None:
        return None
    seats = sorted(event.players, key=lambda p: p.seat)
    if stud:
        after = seats
    else:
        after = [p for p in seats if p.seat > (button or 0)] + [p for p in seats if p.seat <= (button or 0)]
        if len(after) == 2 and after[-1].seat != button:
            log.refuse("heads-up, the button is not a player of the hand")
            return None
    number = {p.player_id: i + 1 for i, p in enumerate(after)}
    order = [p.player_id for p in after]
    blinds = [log.blinds.get(name, 0) for name in order]
    if stud:
        if any(blinds):
            log.refuse("a blind posted in a stud game")
            return None
    elif len(order) > 2 and any(blinds[2:]):
        log.refuse("a blind posted out of position")
        return None
    elif len(order) == 2:
        if log.small_blind not in (None, order[1]) or log.big_blind not in (None, order[0]):
            log.refuse("heads-up blinds posted out of position")
            return None
    elif log.small_blind not in (None, order[0]) or log.big_blind not in (None, order[1]):
        log.refuse("blinds posted out of position")
        return None
    antes = [log.antes.get(name, 0) for name in order]
    if len(order) == 2 and not stud:  # phh-std: heads-up, the lists name the small blind first (the button, p2)
        blinds, antes = blinds[::-1], antes[::-1]
    actions = _actions(log, number, DRAW_CARDS.get(variant, 0))
    if (stud or variant in DRAW_CARDS) and sum(not p.folded for p in after) > 1:  # a showdown, the cards dealt
        actions += [f"p{number[p.player_id]} sm {''.join(p.hole_cards or ())}" for p in after if _shown(p)]  # unknown
    actions += [f"p{number[p.player_id]} sm" for p in after if p.folded and not _folded(log, p.player_id)]
    play: dict[str, Any] = {
        "variant": letter + game,
        "starting_stacks": [p.stack for p in after],
        "antes": antes,
        "blinds_or_straddles": blinds,  # stud: none (zeros, as PHH files write them)
        "actions": actions,
    }
    if letter == "F":
        play |= {"small_bet": small_bet, "big_bet": big_bet}
    else:
        play["min_bet"] = big_blind
    if stud:
        play["bring_in"] = bring_in
    if any(antes):
        play["ante_trimming_status"] = True  # the room's antes count toward each level (its contributed)
    doc = event.model_dump(mode="json", exclude_none=True)
    doc["players"] = [p.model_dump(mode="json", exclude_none=True) for p in after]
    built = validated_event(doc | {"play": play}, source, event.hand_id, line)
    try:
        played(built)
    except InvalidEvent as exc:  # the room's writing of a rule (a capped round, a raise nobody can call)
        first = exc.rejections[0]
        log.refuse(f"{REFUSED_BY_MACHINE} ({first.code})", first.message)
        return None
    return built


def _actions(log: PlayLog, number: dict[str, int], cards: int) -> list[str]:
    """The log's actions in phh-std: ``("", "db CARDS")`` the dealer's; a draw game's own cards dealt unknown first
    (``cards`` each), each discard's replacements dealt unknown after it."""
    out = [f"d dh p{n} {'??' * cards}" for n in number.values()] if cards else []
    for name, what in log.actions:
        if not name:
            out.append(f"d {what}")
        elif what.startswith("dh "):
            out.append(f"d dh p{number[name]} {what[3:]}")
        else:
            out.append(f"p{number[name]} {what}")
            if cards and what.startswith("sd "):
                out.append(f"d dh p{number[name]} {what[3:]}")
    return out


def without_play(read: HandRecord, log: PlayLog) -> HandRecord:
    """``read`` saying why its hand has no ``play`` (:attr:`PlayLog.why_not`): what a reader returns when
    :func:`with_play` gave ``None``, so that the replay's summary names the reason."""
    return read._replace(no_play=log.why_not or "no reason given", no_play_detail=log.detail)


def _shown(player: PlayerIn) -> bool:
    """A seat still in at the end whose own cards the event holds (shown at the showdown)."""
    return not player.folded and bool(player.hole_cards)


def _folded(log: PlayLog, name: str) -> bool:
    return (name, "f") in log.actions


class PlayBuilder(HandBuilder):
    """A :class:`~.builder.HandBuilder` that logs the betting in :attr:`log` as the reader tells it: a live pay that
    raises the street's bet is ``cbr`` (to the seat's new total), one that does not a ``cc`` (a call, all-in for
    less too); a check ``cc``, a fold ``f``, a pay outside the street's bet an ante, a dead pay refused (a dead
    blind), a board's new cards ``db``, a hand run more than once refused. The blinds are the reader's to say."""

    def __init__(self, lines: list[str], source: str, hand_id: str, start: int, scale: int = 100) -> None:
        super().__init__(lines, source, hand_id, start, scale)
        self.log = PlayLog()

    @classmethod
    def of(cls, hand: HandBuilder) -> PlayBuilder:
        """A builder for the hand ``hand`` (just made by a shared helper, nothing read yet) that logs its play."""
        return cls(hand.lines, hand.source, hand.hand_id, hand.start, hand.scale)

    def blind(self, name: str, chips: int, k: int, *, big: bool) -> None:
        """``name`` posts the small (or ``big``) blind: paid, and logged as phh-std's blind."""
        super().pay(name, chips, k)
        self.log.blind(name, chips, big=big)

    def pay(self, name: str, chips: int, k: int, *, to_bet: bool = True, is_dead: bool = False) -> None:
        before = max(self.bet.values(), default=0)
        super().pay(name, chips, k, to_bet=to_bet, is_dead=is_dead)
        if is_dead:
            self.log.refuse("a dead blind")
        elif not to_bet:
            self.log.antes[name] = self.log.antes.get(name, 0) + chips
        else:
            self.log.actions.append((name, f"cbr {self.bet[name]}" if self.bet[name] > before else "cc"))

    def check(self, name: str, k: int) -> None:
        super().check(name, k)
        self.log.actions.append((name, "cc"))

    def fold(self, name: str, k: int) -> None:
        again = name in self.folded  # PKR: 'did not respond in time and is folded', then 'folds'
        super().fold(name, k)
        if not again:
            self.log.actions.append((name, "f"))

    def deal(self, cards: list[str], size: int, k: int) -> None:
        before = len(self.board)
        super().deal(cards, size, k)
        self.log.actions.append(("", "db " + "".join(self.board[before:])))

    def deal_run(self, run: int, cards: list[str], size: int, k: int) -> None:
        super().deal_run(run, cards, size, k)
        self.log.refuse("a hand run more than once")


def limit_named(words: str) -> str:
    """The betting the first limit ``words`` name, as the rooms write it (``NL``, ``PL``, ``FL``; ``No Limit``, ``POT
    LIMIT``, ``NO_LIMIT``, ``Fixed Limit``, ``Limit``): ``no_limit``, ``pot_limit``, ``fixed_limit``, ``""`` (none)."""
    found = _LIMIT_WORDS.search(words)
    if found is None:
        return ""
    letter = (found.group(1) or found.group(2) or found.group(3) or "f")[0].lower()
    return {"n": "no_limit", "p": "pot_limit"}.get(letter, "fixed_limit")


def with_room_play(
    read: HandRecord, hand: PlayBuilder, limit: str, big_blind: int | None, button: int | None
) -> HandRecord:
    """``read`` (the record ``hand`` finished) with its event's ``play`` from ``hand``'s log (:func:`with_play`),
    or as it is when phh-std cannot express the hand (``hand.log.why_not`` says why)."""
    if read.event is None:
        return read
    log = hand.log
    if (
        len(read.event.players) == 2
        and log.small_blind
        and log.blinds[log.small_blind] == log.blinds.get(log.big_blind or "", 0)
    ):
        log.refuse("heads-up blinds of one size: phh-std's blinds cannot say which seat acts first")
    event = with_play(read.event, hand.log, limit, big_blind, button, read.source, read.line)
    return without_play(read, hand.log) if event is None else read._replace(event=event)


def unplayable(log: PlayLog, event: ShowdownEvent, big_blind: int | None, button: int | None) -> None:
    """Refuse in ``log`` what the state machine plays otherwise than the rooms (iPoker, partypoker): a dead button
    (phh-std's last player is the button: the button's seat must be in the hand) and a big blind posted all-in for
    less than the stakes' (the rooms have the others call the full big blind,
    :attr:`~.builder.HandBuilder.big_blind`; the state machine, the chips posted)."""
    if button is not None and len(event.players) > 2 and all(p.seat != button for p in event.players):
        log.refuse("a dead button (the button's seat is not in the hand)")
    if big_blind is not None and log.big_blind is not None and log.blinds[log.big_blind] < big_blind:
        log.refuse("a big blind posted all-in for less than the stakes' big blind")
