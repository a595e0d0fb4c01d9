"""Read Winning Poker Network (ACR, Americas Cardroom) hand histories of the 2014 client: cash games in cents.

A hand is ``Game started at: 2014/3/8 22:0:24`` ... ``Game ended at: ...``:
``Game ID: 261402183 2/4 Braunite (Omaha)`` (the game in the last
parentheses; ``(JP)`` marks a jackpot table), ``Seat 1 is the button``, the
seats (``Seat 1: do not-call (160).``), then every action of a player as
``Player NAME ...`` with the amount in parentheses and without a currency:
``has small blind (2)``, ``has big blind (4)``, ``posts (0.25) as a dead
bet``, ``posts (0.50)``, ``straddle (0.50)``, ``calls (24)``, ``bets (71)``,
``raises (32)``, ``allin (124)`` (each the chips added, a raise too),
``received card: [Ah]`` (the hand's own player), ``Uncalled bet (0.50)
returned to NAME``; the streets (``*** FLOP ***: [9h 10d 7c]``) and ``------
Summary ------`` with ``Pot: 319. Rake 1`` (what was collected, the rake
apart) and one line per player with its cards and ``Bets: 160. Collects:
319. Wins: 159.``.

WPN does not say which pot a player collected from: the comparison checks
each player's ``Collects`` against their total over the rules' pots, and
each player's ``Bets`` against the actions (docs/replay.md, WPN).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import ChipsDoNotAddUp, HandSyntaxError, ReplayError
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import BUTTON_SEAT, CARDS, STREETS
from showdown_service.histories.reader import Reader, opens_with
from showdown_service.histories.reading import headed_hand, returned, seats, split_hands, starting_with
from showdown_service.histories.room_log import log_of, log_play, with_builder_play

START: Final = "Game started at: "
_GAME = re.compile(r"^Game ID: (\d+) (\S+) (.*)\(([^()]+)\)\s*$")
_SEAT = re.compile(r"^Seat (\d+): (.+) \(([\d.,]+)\)\.?$")
_AMOUNT = re.compile(
    r"^(has small blind|has big blind|posts|straddle|calls|bets|raises|allin) \(([\d.,]+)\)( as a dead bet)?$"
)
_STREET = re.compile(r"^\*\*\* (FLOP|TURN|RIVER) \*\*\*:?\s*(.*)$")
_UNCALLED = re.compile(r"^Uncalled bet \(([\d.,]+)\) returned to (.+?)\s*$")
_POT = re.compile(r"^Pot: ([\d.,]*\d)\.? Rake ([\d.,]*\d)\.?(?: JP fee ([\d.,]*\d)\.?)?")
"""``Pot: 319. Rake 1``; ``Pot: 320.75. Rake 2.17. JP fee 0.08`` (2017: the jackpot fee, taken from the pot too)."""
_RESULT = re.compile(r"Bets: ([\d.,]+?)\. Collects: ([\d.,]+?)\. (?:Wins|Loses): [\d.,]+?\.?$")
_DEALT: Final = (" received a card.", " received card.")
_QUIET: Final = (
    "received a card.",
    "folds",
    "checks",
    "mucks cards",
    "sitting out",
    "wait BB",
    "is timed out.",
    "is disconnected",
    "is connected",
)


def read_wpn(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a WPN hand history file's ``text``, read, or the error that stopped it."""
    return split_hands(text, source, starting_with(START), "Game started at:", _read)


def _read(lines: list[str], start: int, end: int, source: str) -> HandRecord:
    what = "'Game ID: N STAKES TABLE (GAME)'"
    hand, head = headed_hand(lines, start, end, source, room="wpn", header=_GAME, what=what, at=1)
    log_play(hand)
    k = start + 1
    game = hand.board_game(room_game(head.group(4)), head.group(4), k, "WPN")
    table = head.group(3).strip()
    if "/" in head.group(2):  # '0.10/0.25': a call before the flop is to the big blind even when posted short
        hand.big_blind = hand.chips(head.group(2).rpartition("/")[2], k)
    button = None
    k += 1
    if k < end and (b := BUTTON_SEAT.match(lines[k])):
        button = int(b.group(1))
        k += 1
    k = seats(hand, k, end, _SEAT)
    pot = rake = None
    note = ""
    bets: dict[str, int] = {}
    summary = False
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line or line.endswith(_DEALT) or line.startswith(("Game ended at:", "Board:")):
            continue
        if line == "------ Summary ------":
            summary = True
            hand.total_line = k + 1
            continue
        if m := _STREET.match(line):
            if game.board:
                hand.deal(hand.card_list(" ".join(CARDS.findall(m.group(2))), k), STREETS[m.group(1)], k)
            continue
        if returned(hand, line, k, _UNCALLED):
            continue
        if m := _POT.match(line):
            pot, rake = hand.chips(m.group(1), k), hand.chips(m.group(2), k)
            if m.group(3):
                rake += hand.chips(m.group(3), k)
                note = "the jackpot fee ('JP fee') is in the rake"
            continue
        player = line[1:] if line.startswith("*Player ") else line
        if player.startswith("Player  "):
            continue  # a line about a player with no name ('Player  is timed out.')
        if not player.startswith("Player "):
            raise hand.error(HandSyntaxError, k, "not a line of a WPN hand")
        rest = player[len("Player ") :]
        name = hand.speaker(rest) or hand.speaker(rest, ":")
        if name is None:
            raise hand.error(HandSyntaxError, k, "a player with no seat in this hand")
        action = rest[len(name) :].lstrip(" ")
        if summary:
            bets[name] = _summary_line(hand, name, action, k)
            continue
        _act(hand, name, action, k)
    if pot is None or rake is None:
        raise HandSyntaxError(source, hand.hand_id, end, "the hand has no 'Pot: X. Rake Y' line", game.name)
    collected = sum(sum(p.values()) for p in hand.pots.values())
    if collected != pot:
        raise ChipsDoNotAddUp(source, hand.hand_id, hand.total_line, f"'Pot' says {pot} but {collected} is collected")
    wrong = {n: b for n, b in bets.items() if b != hand.put[n] + hand.dead[n]}
    if wrong:
        detail = ", ".join(f"{n} {b} (the actions: {hand.put[n] + hand.dead[n]})" for n, b in wrong.items())
        raise ChipsDoNotAddUp(
            source, hand.hand_id, hand.total_line, f"the summary's bets are not the actions': {detail}"
        )
    in_pots = sum(hand.put.values()) + sum(hand.dead.values())
    if (
        in_pots - pot - rake == JACKPOT_DROP
        and hand.board
        and ("(JP" in lines[start + 1] or "Beast" in lines[start + 1])
    ):
        rake += JACKPOT_DROP
        note = "the jackpot drop ($0.25), which WPN writes nowhere, is in the rake"
    # the 2014 client names the game but not its betting ('(Omaha)'): never guessed, so no play (limit "")
    read = hand.finish(game, button, table, rake=rake, currency="$", room="WPN", note=note)
    return with_builder_play(read, hand, "", button)


JACKPOT_DROP: Final = 25
"""WPN's jackpot tables (``(JP)``, ``( Beast )``) take 25 cents from a pot that sees the flop for the bad-beat jackpot
(in the samples, not from every such pot); the history writes it nowhere: a pot short of exactly that is the drop."""


def _summary_line(hand: HandBuilder, name: str, action: str, k: int) -> int:
    """A seat's line of the summary at line ``k`` (``... Bets: X. Collects: Y. Wins: Z.``, its cards shown or
    mucked): what it collects and shows taken, the chips it says the seat bet returned."""
    result = _RESULT.search(action)
    if result is None:
        raise hand.error(HandSyntaxError, k, "expected '... Bets: X. Collects: Y. Wins: Z.'")
    bet = hand.chips(result.group(1), k)
    if collects := hand.chips(result.group(2), k):
        hand.collect(name, collects, k)
    if action.startswith("shows"):
        hand.show(name, hand.card_list(" ".join(CARDS.findall(action)), k), k)
    elif action.startswith("mucks"):
        hand.muck(name, k)
    return bet


def _act(hand: HandBuilder, name: str, action: str, k: int) -> None:
    """One action of ``name`` before the summary."""
    if m := _AMOUNT.match(action):
        verb, chips = m.group(1), hand.chips(m.group(2), k)
        if m.group(3):  # 'posts (0.25) as a dead bet'
            hand.pay(name, chips, k, to_bet=False, is_dead=True)
        elif verb in ("has small blind", "has big blind"):
            hand.post_blind(name, chips, k, big=verb == "has big blind")
        elif verb == "calls":
            hand.call(name, chips, k)
        else:  # posts, straddles, bets, raises and all-ins: the chips added
            hand.pay(name, chips, k)
            if verb == "straddle":
                log_of(hand).refuse("a straddle or a button blind")
            elif verb == "posts":
                log_of(hand).refuse("a blind posted beside the small and big blinds (a player new to the table)")
        return
    if action.startswith(("received card: ", "received a card: ")):  # the latter in a 2016 Omaha hand
        hand.show(name, hand.card_list(" ".join(CARDS.findall(action)), k), k)
    elif (step := _NO_CHIPS.get(action)) is not None:
        step(hand, name, k)
    elif not action.startswith(_QUIET):
        raise hand.error(HandSyntaxError, k, "not a WPN action")


_NO_CHIPS: Final[dict[str, Callable[[HandBuilder, str, int], None]]] = {
    "folds": HandBuilder.fold,
    "checks": HandBuilder.check,
    "mucks cards": HandBuilder.muck,
}
"""WPN's actions that move no chips, and the builder's step for each."""


READER: Final = Reader("wpn", opens_with("Game started at: "), read_wpn)
