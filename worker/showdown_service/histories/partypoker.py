"""Read partypoker hand histories (the 2012-2018 clients): cash games in cents, tournaments in chips.

A hand begins at ``***** Hand History for Game 13549932236 *****`` (some
exports put ``#Game No : N`` above it and ``Game #N starts.`` below), then
the stakes and game (``$0.05/$0.10 USD NL Texas Hold'em - Sunday, ...``; a
table by buy-in writes ``$100 USD PL Omaha Hi-Lo``), ``Table NAME (Real
Money)``, ``Seat N is the button``, ``Total number of players : 6/6``, the
seats in any order (``Seat 2: GrindAA ( $29.58 USD )``), the actions with
bracketed amounts (``posts big blind [$0.10 USD].``, ``raises [$0.30 USD]``,
``is all-In  [$4.90 USD]``: each the chips added), the streets (``**
Dealing Flop ** [ 8s, 5c, 6h ]``), the cards (``shows [ 8c, 8d ]three of a
kind``, ``doesn't show [ Jc, Jd ]``) and the awards (``wins $20.66 USD
from the main pot with ...``, ``wins Lo ($28.75 USD) from the main pot``,
``wins $1.87 USD from the side pot 1``, ``wins $0.40 USD`` when all fold).

partypoker writes no total pot, no rake and no uncalled bet: the bet nobody
called comes back as a side pot of its own that its owner ``wins`` (or in
the amount of a player all folded to); the rake is the pot less what was
collected (see docs/replay.md, partypoker): 5% until 2015, an eighteenth of
the pot in the 2018 export (:data:`RAKE_18TH_SINCE`). A tournament hand
(2016: ``NL Texas Hold'em $215 USD Buy-in Trny:128730277 Level:12
Blinds-Antes(1 200/2 400 -400) - DATE``) is in chips and not raked.

The betting is logged as it is played (:class:`~.room_play.PlayLog`, issue 36): a no-limit or pot-limit hand's
event carries phh-std's ``play``, so that the replay settles it with the betting played by the state machine; a
hand phh-std cannot express here (fixed limit, a dead blind, a blind posted out of position...) keeps none, and the
log says why.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from typing import Final

from showdown_service.histories.builder import CAP_STEP, HandBuilder, no_flop_no_drop
from showdown_service.histories.errors import HandSyntaxError, ReplayError
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import STREETS_LOWER
from showdown_service.histories.reader import PARTYPOKER, Reader, banner_room
from showdown_service.histories.reading import banner_hands, bracketed, button_and_seats, dealt, stakes_line
from showdown_service.histories.room_play import LIMITS, PlayLog, unplayable, with_play, without_play

_BANNER = re.compile(r"^\*{5} Hand History for Game (\d+) \*{5}$")
_HEADER = re.compile(r"^(.+?) (?:USD|EUR|GBP)? ?(NL|PL|FL|No Limit|Pot Limit|Fixed Limit)?\s*(.+?) - (.+)$")
_TOURNAMENT_HEADER = re.compile(
    r"^((?:NL|PL|FL|No Limit|Pot Limit|Fixed Limit) .+?) (\S+ (?:USD|EUR|GBP) Buy-in|Freeroll)"
    r" Trny:\s*(\d+) Level:\s*(\d+)\s+Blinds-Antes\(.*\) - (.+)$"
)
"""A tournament hand's header (2016): ``NL Texas Hold'em $215 USD Buy-in Trny:128730277 Level:12
Blinds-Antes(1 200/2 400 -400) - Monday, September 26, 01:30:41 MSK 2016``: the amounts are chips."""
_YEAR = re.compile(r"\b(\d{4})\s*$")
_TABLE = re.compile(r"^Table (.+?)\s*(?:\((?:Real|Play) Money\))?\s*$")
_BRACKETED = re.compile(
    r"^(.+?) (posts small blind|posts big blind \+ dead|posts big blind|posts dead blind|posts ante|calls|bets|raises"
    r"|is all-In)\s+"
    r"\[([^\]]*)\]\.?$"
)
_CARDS = re.compile(r"^(.+?) (shows|doesn't show) \[ ?([^\]]*?) ?\]")
_WINS = re.compile(r"^(.+?) wins (?:Lo \()?([^()]+?)\)?(?: from the (main pot|side pot (\d+)))?(?: with .*)?\.?$")
_LEVEL = re.compile(r"Blinds-Antes\(([\d .,]+)/([\d .,]+)")
"""A tournament header's blinds (``Blinds-Antes(1 200/2 400 -400)``): the big blind, the level's."""
_LIMITS: Final = {
    **dict.fromkeys(("NL", "No Limit"), "no_limit"),
    **dict.fromkeys(("PL", "Pot Limit"), "pot_limit"),
    **dict.fromkeys(("FL", "Fixed Limit"), "fixed_limit"),
}
"""The betting a header names (``$0.05/$0.10 USD NL Texas Hold'em``), as :func:`~.room_play.with_play` takes it."""
_STREET = re.compile(r"^\*\* Dealing (down cards|Flop|Turn|River) \*\*(?: \[ ?([^\]]*?) ?\])?$", re.I)
_INFO: Final = (
    "Total number of players",
    " has joined the table",
    " has left the table",
    " will be using",
    "Your time bank",
    " does not show cards",
    " is sitting out",
    " has been reconnected",
    " is disconnected",
    " shows",  # the low hand shown as ranks: 'shows7,5,4,2,A  for low.'
    " did not respond in time",
    " could not respond in time",  # '... could not respond in time.(disconnected)' (2018)
    "Due to current high memory use",  # the client's notice about its animations, written into the 2018 export
    "Trny:",  # a tournament hand's 'Trny:128730277 Level:12' and 'Blinds-Antes(1 200/2 400 -400)' lines
    "Blinds-Antes(",
    " finished in ",  # 'Player NAME finished in 840.': a place, not chips
    "Game #",  # 'Game #N starts.': the next hand's, written at the end of this one
)


def read_partypoker(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a partypoker hand history file's ``text``, read, or the error that stopped it."""
    what = "***** Hand History for Game"
    return banner_hands(text, source, banner=_BANNER, prefix="partypoker", what=what, read=_read)


def _read(hand: HandBuilder, end: int) -> HandRecord:
    lines, start = hand.lines, hand.start
    k = start + 1
    while k < end and (_BANNER.match(lines[k]) or lines[k].startswith("Game #")):
        k += 1
    tournament = _TOURNAMENT_HEADER.match(lines[k]) if k < end else None
    found = tournament or (_HEADER.match(lines[k]) if k < end else None)
    header = stakes_line(hand, found, k, end, what="'STAKES USD GAME - DATE'")
    named = header.group(1) if tournament else header.group(3)
    game = hand.board_game(room_game(named), named, k, "partypoker")
    currency = "" if tournament else next((c for c in header.group(1) if c in "$€£"), "")
    if tournament:
        hand.scale = 1  # chips: '( 126,043 )', 'posts small blind [1,200].', 'wins 6,000 chips'
    hand.big_blind = _big_blind(hand, header.group(1), k) if not tournament else 0
    year = _YEAR.search(lines[k])
    table = hand.expect(_TABLE, k + 1, end, "'Table NAME (Real Money)'")
    button, k = button_and_seats(hand, k + 2, end, info=_INFO)
    if button is None:
        raise hand.error(HandSyntaxError, start, "no 'Seat N is the button' line")
    names = sorted(hand.players, key=len, reverse=True)
    big_blind = 0
    log = PlayLog()
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line:
            continue
        if street := _STREET.match(line):
            if street.group(1).lower() != "down cards":
                before = len(hand.board)
                hand.deal(hand.card_list(street.group(2) or "", k), STREETS_LOWER[street.group(1).lower()], k)
                log.actions.append(("", "db " + "".join(hand.board[before:])))
            continue
        if (m := _BRACKETED.match(line)) and m.group(1) in hand.players:
            big_blind = _bracketed(hand, m, k, big_blind, log)
            continue
        if (m := _CARDS.match(line)) and m.group(1) in hand.players:
            hand.show(m.group(1), hand.card_list(m.group(3), k), k)
            continue
        if line.startswith("Dealt to "):
            dealt(hand, line, k, one_bracket=True)
            continue
        if (m := _WINS.match(line)) and m.group(1) in hand.players:
            index = 0 if m.group(3) in (None, "main pot") else int(m.group(4))
            hand.collect(m.group(1), hand.chips(m.group(2), k), k, index)
            continue
        who = hand.speaker(line)
        if who is not None:
            verb = line[len(who) + 1 :].rstrip(".")
            if verb == "folds":
                hand.fold(who, k)
                log.actions.append((who, "f"))
                continue
            if verb == "checks":
                hand.check(who, k)
                log.actions.append((who, "cc"))
                continue
        if any(marker in line for marker in _INFO) or any(line.startswith(n + ": ") for n in names):
            continue  # table news, and the chat ('NAME: text')
        raise hand.error(HandSyntaxError, k, "not a line of a partypoker hand")
    hand.total_line = end
    if not hand.pots:
        raise hand.error(HandSyntaxError, end - 1, "the hand ends without a 'wins' line")
    _uncalled_side_pot(hand)
    if tournament:
        read = hand.finish(
            game, button, table.group(1), rake=0, tournament=tournament.group(3), uncalled_written=False,
            room="partypoker",
        )  # fmt: skip
        level = _LEVEL.search(header.string)
        stakes = hand.chips(level.group(2), start) if level else None
        return _with_play(hand, read, log, tournament.group(1).split()[0], big_blind=stakes, button=button)
    since_2018 = year is not None and int(year.group(1)) >= RAKE_18TH_SINCE
    rule = partial(rake_rule, len(hand.board), since_2018)
    read = hand.finish(
        game, button, table.group(1), currency=currency, uncalled_written=False, room="partypoker", rake_rule=rule
    )
    big = hand.big_blind or _posted(hand, log)
    return _with_play(hand, read, log, header.group(2) or "", big_blind=big, button=button)


def _with_play(
    hand: HandBuilder, read: HandRecord, log: PlayLog, limit: str, *, big_blind: int | None, button: int
) -> HandRecord:
    """``read`` with its event's ``play`` (:func:`~.room_play.with_play`) when the log expresses the hand."""
    if read.event is None:
        return read
    limit = _LIMITS.get(limit, limit)
    if limit in LIMITS and limit != "fixed_limit":  # fixed limit's stakes are its bets: with_play names it
        unplayable(log, read.event, big_blind, button)
    event = with_play(read.event, log, limit, big_blind, button, hand.source, hand.start + 1)
    return without_play(read, log) if event is None else read._replace(event=event)


def _posted(hand: HandBuilder, log: PlayLog) -> int | None:
    """A table by buy-in's big blind (its header writes none): the one posted, unless posted all-in (short)."""
    name = log.big_blind
    if name is None or log.blinds[name] + log.antes.get(name, 0) >= hand.players[name].stack:
        return None
    return log.blinds[name]


def _bracketed(hand: HandBuilder, m: re.Match[str], k: int, big_blind: int, log: PlayLog) -> int:
    """A bracketed action at line ``k`` (``posts big blind [$0.10 USD].``, ``raises [$0.30 USD]``: the chips added);
    the big blind posted so far in the hand, that one included. The action goes in ``log`` as phh-std writes it."""
    name, verb = m.group(1), m.group(2)
    if verb == "posts big blind + dead":  # '[$3]': the big blind live, the rest (the small blind) dead
        chips = hand.chips(m.group(3).split("+")[-1], k)
        hand.pay(name, chips - min(chips, big_blind), k, to_bet=False, is_dead=True)
        hand.pay(name, min(chips, big_blind), k)
        log.refuse("a dead small blind (posts big blind + dead)")
        return big_blind
    faced = max(hand.bet.values())
    chips = bracketed(hand, name, verb, m.group(3), k)
    if verb == "posts dead blind":
        log.refuse("a dead small blind (posts dead blind)")
    elif verb == "posts ante":
        log.antes[name] = log.antes.get(name, 0) + chips
    elif verb in ("posts small blind", "posts big blind"):
        log.blind(name, chips, big=verb == "posts big blind")
    elif verb == "calls" or hand.bet[name] <= faced:
        log.actions.append((name, "cc"))  # an all-in for no more than the bet faced is a call
    else:  # bets, raises and all-ins: the chips added, to the round's total
        log.actions.append((name, f"cbr {hand.bet[name]}"))
    return chips if verb == "posts big blind" else big_blind


RAKE_18TH_SINCE: Final = 2018
"""The year from which partypoker's cash hands are raked a eighteenth of the pot (rounded down to the cent), not 5%.

Source: the only export of that year here, thlorenz/hhp's ``fixtures/partypoker/cash.hhsmithy.usd.NLHE.9max.txt``
(June 2018, $0.10/$0.25 and heads-up $0.50/$1): in every one of its 192 hands raked, the pot less what was
collected is ``pot // 18`` exactly (a $7.50 pot: $0.41; $50.85: $2.82; $31.49: $1.74), where 5% gave 21 of them;
the hands before the flop are not raked and one heads-up pot stops at a $0.50 cap. Hands of 2012 to 2015 (HHSmithy's
samples) are raked 5%. No published schedule was found that states the eighteenth: it is the one the export keeps."""


def rake_rule(board: int, since_2018: bool, total: int, derived: int) -> tuple[int, str]:
    """partypoker's rake of a cash hand of ``total`` chips with ``board`` cards dealt, given what the history leaves
    (``derived``): 5% (:func:`~.builder.no_flop_no_drop`), or from 2018 a eighteenth (:data:`RAKE_18TH_SINCE`), no
    flop no drop, capped in steps of $0.50; anything else is the rule's, the comparison showing what was paid."""
    if not since_2018:
        return no_flop_no_drop(board, "partypoker", total, derived)
    most = total // 18 if board else 0
    if derived == most or (derived < most and derived % CAP_STEP == 0):
        return derived, ""
    return most, f"the pot less what was collected is {derived}, which is not partypoker's rake of {most} (or a cap)"


def _big_blind(hand: HandBuilder, stakes: str, k: int) -> int:
    """The big blind of ``$0.10/$0.25`` (a table by buy-in, ``$100``, writes none: 0)."""
    _, slash, big = stakes.partition("/")
    return hand.chips(big, k) if slash else 0


def _uncalled_side_pot(hand: HandBuilder) -> None:
    """partypoker pays the bet nobody called back as the last side pot, won by its owner alone: returned."""
    gross = sorted(((chips, name) for name, chips in hand.put.items()), reverse=True)
    if len(gross) < 2 or gross[0][0] == gross[1][0]:
        return
    back, name = gross[0][0] - gross[1][0], gross[0][1]
    last = max(hand.pots)
    if last and hand.pots[last] == {hand.players[name].seat: back}:
        del hand.pots[last]
        hand.give_back(name, back, hand.total_line - 1)


READER: Final = Reader(PARTYPOKER, lambda head: banner_room(head) == PARTYPOKER, read_partypoker)
"""Under the banner partypoker shares with 888poker, told by its stakes line (:func:`~.reader.banner_room`)."""
