"""Read 888poker (Pacific Poker, Cassava) hand histories: cash games in cents, tournaments in chips.

A hand begins at ``#Game No : N`` (or, without it, at ``***** 888poker Hand
History for Game N *****``; older clients write ``Cassava`` or the skin's
name, ``LuckyAcePoker.com``). Then the stakes and game (``$0.50/$1 Blinds No
Limit Holdem - *** 06 01 2014 10:56:05``), ``Table NAME ...``, ``Seat N is
the button``, the seats (``Seat 1: name ( $100 )``), the actions with
bracketed amounts (``calls [$1]``, ``raises [$6.37]``: the chips added, not a
total), the streets (``** Dealing flop ** [ 4h, Kc, 3s ]``) and ``**
Summary **`` with ``shows`` / ``mucks`` / ``did not show his hand`` and
``collected [ $197.50 ]`` lines.

888 writes neither the total pot, nor the rake, nor an uncalled bet, nor
which pot a ``collected`` line pays (a hi/lo split writes two lines): the
reader takes the bet the actions leave uncalled as returned, the rake as
the pot less what was collected, and the comparison checks each seat's
total (see docs/replay.md, 888poker).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Final

from showdown_service.histories.builder import HandBuilder, no_flop_no_drop
from showdown_service.histories.errors import HandSyntaxError, ImpossibleAction, ReplayError
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import GAME_NO, STREETS_LOWER, TOURNAMENT_NUMBER
from showdown_service.histories.reader import PACIFIC, Reader, banner_room
from showdown_service.histories.reading import banner_hands, bracketed, button_and_seats, dealt, stakes_line
from showdown_service.histories.room_log import betting_limit, log_play, with_builder_play

_BANNER = re.compile(
    r"^\*{5} (?:888poker|Cassava|Pacific Poker|888\.\w+|[\w.]+\.com) Hand History for Game (\d+) \*{5}$"
)
_HEADER = re.compile(r"^(.*?) Blinds (.+?) - \*\*\* (.+)$")
_TOURNAMENT_TABLE = re.compile(
    r"^Tournament #(\d+) (.*?) - Table #?(.+?)\s*(?:\d+ Max)?\s*(?:\((?:Real|Play) Money\))?\s*$"
)
"""A tournament hand's table line (``Tournament #78669312 $0.01 - Table #3 9 Max (Real Money)``, 2016): its
amounts are chips, written with the currency sign (``Seat 1: joeballoons ( $970 )``), and it is not raked."""
_TABLE = re.compile(r"^Table (.+?)\s*(?:\d+ Max)?\s*(?:\((?:Real|Play) Money\))?\s*$")
_ACTION = re.compile(
    r"^(.+?) (posts small blind|posts big blind|posts dead blind|posts ante|calls|bets|raises|is all-in|allin)"
    r" \[([^\]]*)\]$"
)
_PLAIN = re.compile(r"^(.+?) (folds|checks|did not show his hand|mucks|shows)(?: \[ ?([^\]]*?) ?\])?.*$")
_COLLECTED = re.compile(r"^(.+?) collected \[ ?([^\]]*?) ?\]$")
_STREET = re.compile(r"^\*\* Dealing (down cards|flop|turn|river) \*\*(?: \[ ?([^\]]*?) ?\])?$")
_INFO: Final = (
    "Total number of players",
    " has joined the table",
    " has left the table",
    " is sitting out",
    " sits out",
    " will be allowed to play after the button",
    " is disconnected",
    " is connected",
)


def starts_hand(line: str) -> bool:
    """Whether ``line`` opens an 888poker hand (``#Game No :`` or the banner)."""
    return bool(GAME_NO.match(line) or _BANNER.match(line))


def read_pacific(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of an 888poker hand history file's ``text``, read, or the error that stopped it."""
    return banner_hands(text, source, banner=_BANNER, prefix="888poker", what="#Game No :", read=_read)


def _read(hand: HandBuilder, end: int) -> HandRecord:
    lines, start = hand.lines, hand.start
    log_play(hand)
    k = start + 1
    if k < end and _BANNER.match(lines[k]):
        k += 1
    found = _HEADER.match(lines[k]) if k < end else None
    header = stakes_line(hand, found, k, end, what="'$SB/$BB Blinds GAME - *** DATE'")
    game = hand.board_game(room_game(header.group(2)), header.group(2), k, "888poker")
    tournament = TOURNAMENT_NUMBER.search(lines[k])
    stakes = header.group(1)
    currency = next((c for c in stakes if c in "$€£"), "")
    hand.scale = 100 if currency or "." in stakes or "," in stakes else 1
    k += 1
    table_line = (_TOURNAMENT_TABLE.match(lines[k]) or _TABLE.match(lines[k])) if k < end else None
    if table_line is None:
        raise hand.error(HandSyntaxError, min(k, end - 1), "expected 'Table NAME' or 'Tournament #N BUY-IN - Table N'")
    if table_line.re is _TOURNAMENT_TABLE:
        tournament, currency, hand.scale = table_line, "", 1
    if "/" in stakes:  # a call before the flop is to the big blind even when it was posted short (all-in for less)
        hand.big_blind = hand.chips(stakes.rpartition("/")[2], k - 1)
    button, k = button_and_seats(hand, k + 1, end, info=_INFO)
    if button is None and not game.stud:
        raise hand.error(HandSyntaxError, start, "no 'Seat N is the button' line")
    names = sorted(hand.players, key=len, reverse=True)
    summary = False
    mucked_cards: list[tuple[str, int]] = []
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line or line.startswith(("(Hi:", "(Lo:")):
            continue
        if line == "** Summary **":
            summary = True
            hand.total_line = k + 1
            continue
        if street := _STREET.match(line):
            if street.group(1) != "down cards":
                hand.deal(hand.card_list(street.group(2) or "", k), STREETS_LOWER[street.group(1)], k)
            continue
        if (m := _ACTION.match(line)) and m.group(1) in hand.players:
            bracketed(hand, m.group(1), m.group(2), m.group(3), k)
            continue
        if line.startswith("Dealt to "):
            dealt(hand, line, k, one_bracket=True)
            continue
        if m := _COLLECTED.match(line):
            hand.collect(m.group(1), hand.chips(m.group(2), k), k)
            continue
        if (m := _PLAIN.match(line)) and m.group(1) in names:
            _plain(hand, m, k, mucked_cards)
            continue
        if any(marker in line for marker in _INFO):
            continue
        if not summary and any(line.startswith(n + " ") for n in names):
            raise hand.error(HandSyntaxError, k, "not an 888poker action")
        raise hand.error(HandSyntaxError if summary else ImpossibleAction, k, "not a line of an 888poker hand")
    if not any(hand.left[n] == 0 and hand.put[n] for n in hand.players):
        # 'mucks [ 4s, 4c ]' gives up the pot (a 2014 cash hand: the two pair mucked, A-high collects); with a seat
        # all-in the cards are turned up and judged whatever the player clicks (a 2016 tournament hand: SYSTEM3RROR
        # 'mucks [ Td, 9d ]' beside an all-in and collects the side pot his tens win)
        for name, k in mucked_cards:
            hand.muck(name, k)
    limit = betting_limit(header.group(2))
    if table_line.re is _TOURNAMENT_TABLE:
        read = hand.finish(
            game, button, table_line.group(3), rake=0, tournament=table_line.group(1), uncalled_written=False,
            room="888poker",
        )  # fmt: skip
        return with_builder_play(read, hand, limit, button)
    read = hand.finish(
        game, button, table_line.group(1), tournament=tournament.group(1) if tournament else None,
        currency=currency, uncalled_written=False, room="888poker",
        rake_rule=partial(no_flop_no_drop, len(hand.board), "888poker"),
    )  # fmt: skip
    return with_builder_play(read, hand, limit, button)


def _plain(hand: HandBuilder, m: re.Match[str], k: int, mucked_cards: list[tuple[str, int]]) -> None:
    """An action without chips at line ``k`` (folds, checks, shows, mucks); cards mucked face up are noted in
    ``mucked_cards`` (see :func:`_read`'s end)."""
    name, verb = m.group(1), m.group(2)
    if verb == "folds":
        hand.fold(name, k)
    elif verb == "checks":
        hand.check(name, k)
    elif verb == "shows":
        hand.show(name, hand.card_list(m.group(3) or "", k), k)
    elif verb == "mucks":
        if m.group(3):
            hand.show(name, hand.card_list(m.group(3), k), k)
            mucked_cards.append((name, k))
        else:
            hand.muck(name, k)


READER: Final = Reader(PACIFIC, lambda head: banner_room(head) == PACIFIC, read_pacific)
"""Under the banner 888poker shares with partypoker (``#Game No : N`` above it is skipped as a comment), told by
its stakes line (:func:`~.reader.banner_room`)."""
