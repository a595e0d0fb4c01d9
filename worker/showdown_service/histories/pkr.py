"""Read PKR hand histories: cash games in cents.

Written from the real exports in ``../shared/data/rooms-more/PKR`` (2013; pokerregion/poker's tests, MIT). A hand
begins at ``Table #52120858 - NAME`` and ``Starting Hand #2433310836``, then ``Game Type: OMAHA`` (``HOLD'EM``),
``Limit Type: POT LIMIT``, ``Money Type: REAL MONEY``, ``Blinds are now $0.25 / $0.50``, ``Button is at seat 5``,
the seats (``Seat 1: Duckface - $269.17``, ``(away from table)`` after one sitting out), ``Moving Button to seat
6`` (the hand's button), the blinds (``posts small blind ($0.25)``), ``Dealing Cards``, ``Dealing [9 s][6 d] to
NAME`` (the exporting player's cards), the actions (``calls $1.50``: to the street's total, as ``Pot sizes: $3``
after it shows; ``bets $3``; ``raises to $42.48 (all-in)``), the board (``Dealing Flop [2 c][4 c][Q h]``,
``Dealing Turn [7 h]``), ``Taking Rake of $2.70 from pot 1``, ``shows [A h][J c]``, ``mucks``, ``doesn't show``,
``wins $51.30`` (what the seat collected, no pot named; the bet nobody called is not in it, and not written), the
seats again and ``End of Hand #2433310836``.

The betting is logged as the hand is read (:class:`~.room_play.PlayBuilder`): a ``NO LIMIT`` or ``POT LIMIT`` hand
carries its ``play``, its big blind the second of ``Blinds are now``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import HandSyntaxError, ReplayError
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import STREETS_TITLED
from showdown_service.histories.reader import Reader
from showdown_service.histories.reading import split_hands
from showdown_service.histories.room_play import PlayBuilder, limit_named, with_room_play

_TABLE: Final = re.compile(r"^Table #\d+ - (.*)$")
_HAND: Final = re.compile(r"^Starting Hand #(\d+)$")
_SEAT: Final = re.compile(r"^Seat (\d+): (.+) - (\S+)( \(away from table\))?$")
_BUTTON: Final = re.compile(r"^(?:Button is at|Moving Button to) seat (\d+)$")
_STREET: Final = re.compile(r"^Dealing (Flop|Turn|River) ((?:\[[^\]]*\])+)$")
_DEALT: Final = re.compile(r"^Dealing ((?:\[[^\]]*\])+) to (.+)$")
_RAKE: Final = re.compile(r"^Taking Rake of (\S+) from pot \d+$")
_CARD: Final = re.compile(r"\[(10|[2-9TJQKA]) ?([cdhs])\]")
_HEAD: Final = ("Start time of hand:", "Last Hand #", "Limit Type:", "Table Type:", "Blinds are now ")
_QUIET: Final = ("Shuffling Deck", "Dealing Cards", "Pot sizes:", "End of Hand #")
_INFO: Final = (" is at seat ", " will be dealt in", " has ", " doesn't show", " sits out", " has left")


def is_pkr(stripped: str, text: str) -> bool:
    """Whether a file whose first line is ``stripped`` is PKR's: ``Table #N - NAME`` then ``Starting Hand #N``."""
    return _TABLE.match(stripped) is not None and re.search(r"(?m)^\s*Starting Hand #\d+\s*$", text[:1000]) is not None


def starts_pkr(lines: list[str], k: int) -> bool:
    """Whether a PKR hand starts at line ``k``: ``Table #N - NAME`` followed by ``Starting Hand #N``."""
    return _TABLE.match(lines[k]) is not None and k + 1 < len(lines) and _HAND.match(lines[k + 1]) is not None


def read_pkr(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a PKR hand history file's ``text``, read, or the error that stopped it."""
    return split_hands(text, source, starts_pkr, "Table #N - ", _read)


def _cards(hand: HandBuilder, text: str, k: int) -> list[str]:
    """``[2 c][10 h]`` -> ``2c Th``; anything else in the brackets is an error naming it."""
    found = _CARD.findall(text)
    if len(found) != text.count("["):
        raise hand.error(HandSyntaxError, k, f"{text!r} are not cards")
    return hand.card_list(" ".join(("T" if rank == "10" else rank) + suit for rank, suit in found), k)


def _read(lines: list[str], start: int, end: int, source: str) -> HandRecord:
    table = _TABLE.match(lines[start])
    number = _HAND.match(lines[start + 1])
    assert table is not None  # split_hands starts a hand only at such lines
    assert number is not None
    hand = PlayBuilder(lines, source, f"pkr:{number.group(1)}", start)
    kind, money, button, rake = "", True, None, 0
    limit, big = "", ""
    k = start + 2
    while k < end and not lines[k].startswith("Seat "):
        line = lines[k]
        if line.startswith("Game Type: "):
            kind = line.removeprefix("Game Type: ")
        elif line.startswith("Money Type: "):
            money = line.removeprefix("Money Type: ") == "REAL MONEY"
        elif b := _BUTTON.match(line):
            button = int(b.group(1))
        elif line.startswith(("Limit Type: ", "Blinds are now ")):
            limit = limit_named(line.removeprefix("Limit Type: ")) or limit
            big = line.rpartition(" / ")[2] if line.startswith("Blinds") else big
        elif line and not line.startswith(_HEAD):
            raise hand.error(HandSyntaxError, k, "not a line of a PKR hand's head")
        k += 1
    game = hand.board_game(room_game(kind.title().replace("Hold'Em", "Holdem")), kind, start, "PKR")
    hand.scale = 100 if money else 1
    while k < end and (seat := _SEAT.match(lines[k])):
        hand.seat(int(seat.group(1)), seat.group(2), hand.chips(seat.group(3), k), k, sitting_out=bool(seat.group(4)))
        k += 1
    hand.two_seats(k, end)
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line or line.startswith(_QUIET) or _SEAT.match(line):
            continue  # the seats again at the end: their stacks after the hand
        if b := _BUTTON.match(line):
            button = int(b.group(1))
        elif street := _STREET.match(line):
            if game.board:
                hand.deal(_cards(hand, street.group(2), k), STREETS_TITLED[street.group(1)], k)
        elif dealt := _DEALT.match(line):  # the exporting player's own cards
            hand.show(hand.player(dealt.group(2), k), _cards(hand, dealt.group(1), k), k)
        elif taken := _RAKE.match(line):
            rake += hand.chips(taken.group(1), k)
            hand.total_line = k + 1
        elif (who := hand.speaker(line)) is not None:
            _act(hand, who, line[len(who) + 1 :], k)
        else:
            raise hand.error(HandSyntaxError, k, "not a line of a PKR hand")
    read = hand.finish(
        game, button, table.group(1), rake=rake, currency="$" if money else "", uncalled_written=False, room="PKR",
    )  # fmt: skip
    return with_room_play(read, hand, limit, hand.chips(big, start) if big else None, button)


def _act(hand: PlayBuilder, name: str, action: str, k: int) -> None:
    """One action of ``name``."""
    action = action.removesuffix(" (all-in)")
    verb, _, rest = action.partition(" ")
    if action.startswith(("posts small blind ", "posts big blind ")):
        hand.blind(name, hand.chips(action.rsplit(" ", 1)[1], k), k, big=action.startswith("posts big"))
    elif verb == "calls":  # to the street's total
        hand.call(name, hand.chips(rest, k) - hand.bet[name], k)
    elif verb == "bets":
        hand.pay(name, hand.chips(rest, k), k)
    elif action.startswith("raises to "):
        hand.raise_to(name, hand.chips(action.removeprefix("raises to "), k), k)
    elif action in ("checks",):
        hand.check(name, k)
    elif action in ("folds", "did not respond in time and is folded"):
        hand.fold(name, k)
    elif verb == "shows":
        hand.show(name, _cards(hand, rest, k), k)
    elif action == "mucks":
        hand.muck(name, k)
    elif verb == "wins":
        hand.collect(name, hand.chips(rest.split(" with: ")[0], k), k)
    elif not any(marker in " " + action for marker in _INFO):
        raise hand.error(HandSyntaxError, k, f"not a PKR action of {name}")


READER: Final = Reader("pkr", lambda head: is_pkr(head.line, head.text), read_pkr)
