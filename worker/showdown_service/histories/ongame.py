"""Read OnGame network hand histories: cash games in cents, tournaments in chips.

Written from the real exports in ``../shared/data/rooms-more/OnGame`` (2014; ItalyToast's PokerHandHistoryParser
tests, MIT). A hand begins at ``***** History for hand R5-361850810-504 *****`` (a tournament: ``***** History for
hand T5-556000000-1 (TOURNAMENT: "NAME", R-10093-864, buy-in: €5) *****``), then ``Start hand: DATE``, ``Table:
Bonn [361850810] (NO_LIMIT TEXAS_HOLDEM $0.50/$1, Real money)`` (``POT_LIMIT OMAHA_HI``, ``POT_LIMIT
OMAHA_HI_LO``, ``LIMIT TEXAS_HOLDEM``; ``Chips`` in a tournament), ``User: NAME`` (the exporting player, at
times), ``Button: seat 2``, ``Players in round: 6``, the seats (``Seat 1: BlackH0L3 ($98.03)``), the blinds
(``fyabcf posts big blind ($1)``), ``---``, ``Dealing pocket cards``, ``Dealing to HERO: [7h, 8s, Ah, 9s]``, the
actions (``calls $3.00`` the chips added, ``bets $18.00``, ``raises $10.00 to $10.50``: to a total for the street,
``[all in]`` after), ``--- Dealing flop [6d, Kd, 8c]`` / ``turn [Js]`` / ``river [4h]``, then ``Summary:`` with
``Main pot: $229.82 won by fyabcf ($226.82)`` (the pot with its rake, uncalled bets not in it; each winner and what it
collected, ``, `` between winners), ``Rake taken: $3`` and the seats again (``net: +$113.91, [Kc, Kh]``: the cards
shown). OnGame writes no uncalled bet: the bet the actions leave uncalled came back.

The betting is logged as the hand is read (:class:`~.room_play.PlayBuilder`): a ``NO_LIMIT`` or ``POT_LIMIT`` hand
carries its ``play``, its big blind the stakes' second amount.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import HandSyntaxError, ReplayError
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import STREETS_LOWER
from showdown_service.histories.reader import Reader, opens_with
from showdown_service.histories.reading import act, actor, headed_hand, seats, split_hands, starting_with
from showdown_service.histories.room_play import PlayBuilder, limit_named, with_room_play

START: Final = "***** History for hand "
_HEADER: Final = re.compile(r"^\*\*\*\*\* History for hand (\S+)(?: \(TOURNAMENT: \"(.*?)\".*\))? \*\*\*\*\*$")
_TABLE: Final = re.compile(r"^Table: (.*?) \[\d+\] \((\S+) (\S+) ([^,()]+), (Real money|Chips|Play money)\)$")
_BUTTON: Final = re.compile(r"^Button: seat (\d+)$")
_SEAT: Final = re.compile(r"^Seat (\d+): (.+) \(([^()]+)\)$")
_STREET: Final = re.compile(r"^--- Dealing (flop|turn|river) \[([^\]]*)\]$")
_DEALT: Final = re.compile(r"^Dealing to (.+): \[([^\]]*)\]$")
_POT: Final = re.compile(r"^(Main pot|Side pot ?(\d+)): (\S+) won by (.+)$")
_WINNER: Final = re.compile(r"(.+?) \(([^()]+)\)(?:, |$)")
_RAKE: Final = re.compile(r"^Rake taken: (\S+)$")
_SHOWN: Final = re.compile(r"^Seat \d+: (.+) \([^()]*\), net: [^,]*, \[([^\]]*)\](?: \(.*\))?$")
_GAMES: Final = {"TEXAS_HOLDEM": "Holdem", "OMAHA_HI": "Omaha", "OMAHA_HI_LO": "Omaha Hi/Lo"}
_BLINDS: Final = ("posts small blind ", "posts big blind ")
_PREAMBLE: Final = ("Start hand: ", "User: ", "Players in round: ")
_INFO: Final = (" sits out", " is sitting out", " joins the table", " leaves the table", " is disconnected")


def read_ongame(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of an OnGame hand history file's ``text``, read, or the error that stopped it."""
    return split_hands(text, source, starting_with(START), START.strip(), _read)


def _read(lines: list[str], start: int, end: int, source: str) -> HandRecord:
    what = "'***** History for hand ID *****'"
    made, header = headed_hand(lines, start, end, source, room="ongame", header=_HEADER, what=what)
    hand = PlayBuilder.of(made)
    tournament = header.group(2)
    k, table, button, table_line = start + 1, None, None, start
    while k < end and not _SEAT.match(lines[k]):
        line = lines[k]
        if (m := _TABLE.match(line)) is not None:
            table, table_line = m, k
        elif (b := _BUTTON.match(line)) is not None:
            button = int(b.group(1))
        elif line and not line.startswith(_PREAMBLE):
            raise hand.error(HandSyntaxError, k, "expected the table, the button or the seats")
        k += 1
    if table is None:
        raise hand.error(HandSyntaxError, min(k, end - 1), "no 'Table: NAME [N] (LIMIT GAME STAKES, MONEY)' line")
    game = hand.board_game(room_game(_GAMES.get(table.group(3), table.group(3))), table.group(3), start, "OnGame")
    stakes = table.group(4)
    currency = next((c for c in stakes if c in "$€£"), "")
    hand.scale = 1 if tournament or table.group(5) != "Real money" else 100
    k = seats(hand, k, end, _SEAT)
    total = rake = None
    in_summary = False
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line or line in ("---", "Dealing pocket cards") or line.startswith("***** End of hand "):
            continue
        if line == "Summary:":
            in_summary, hand.total_line = True, k + 1
        elif in_summary:
            total, rake = _summary(hand, line, k, total, rake)
        elif (street := _STREET.match(line)) is not None:
            if game.board:
                hand.deal(hand.card_list(street.group(2), k), STREETS_LOWER[street.group(1)], k)
        elif (cards := _DEALT.match(line)) is not None:
            hand.show(hand.player(cards.group(1), k), hand.card_list(cards.group(2), k), k)
        elif (who := actor(hand, line, k, info=_INFO, room="OnGame")) is not None:
            if (action := line[len(who) + 1 :]).startswith(_BLINDS):
                chips = hand.chips(action.removesuffix(" [all in]").rsplit(" ", 1)[1], k)
                hand.blind(who, chips, k, big=action.startswith(_BLINDS[1]))
                continue
            act(
                hand, who, action, k, room="OnGame", blinds=_BLINDS, antes=("posts ante ",), suffixes=(" [all in]",),
            )  # fmt: skip
    if total is None or rake is None:
        raise HandSyntaxError(source, hand.hand_id, end, "the hand has no 'Main pot' and 'Rake taken' lines", game.name)
    read = hand.finish(
        game, button, table.group(1), total=total, rake=rake, tournament=tournament, currency=currency,
        uncalled_written=False, room="OnGame",
    )  # fmt: skip
    big_blind = hand.chips(stakes.rpartition("/")[2], table_line)
    return with_room_play(read, hand, limit_named(table.group(2)), big_blind, button)


def _summary(
    hand: HandBuilder, line: str, k: int, total: int | None, rake: int | None
) -> tuple[int | None, int | None]:
    """One line of the summary: a pot and its winners, the rake, a seat (its cards shown): the total and the rake."""
    if (pot := _POT.match(line)) is not None:
        index = 0 if pot.group(1) == "Main pot" else int(pot.group(2) or 1)
        winners = _WINNER.findall(pot.group(4))
        if not winners:
            raise hand.error(HandSyntaxError, k, "expected 'won by NAME (AMOUNT)'")
        for name, chips in winners:
            hand.collect(name, hand.chips(chips, k), k, index)
        return (total or 0) + hand.chips(pot.group(3), k), rake
    if (taken := _RAKE.match(line)) is not None:
        return total, hand.chips(taken.group(1), k)
    if (shown := _SHOWN.match(line)) is not None:
        hand.show(hand.player(shown.group(1), k), hand.card_list(shown.group(2), k), k)
    elif not line.startswith("Seat "):
        raise hand.error(HandSyntaxError, k, "not a line of an OnGame summary")
    return total, rake


READER: Final = Reader("ongame", opens_with(START), read_ongame)
