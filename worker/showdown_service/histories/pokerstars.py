"""Read PokerStars text hand histories: every game PokerStars deals, cash games (cents) and tournaments (chips).

Why over 400 lines: one text format's grammar for every game PokerStars deals, read top to bottom in
one place (headers, seats, streets, showdown, summary).

A file holds hands one after another. Each hand becomes the
:class:`~showdown_messages.ShowdownEvent` the worker settles, with the real
seat numbers and button; the game (:mod:`.games`) comes from the hand's own
header, so a mixed game's file (HORSE, 8-Game, Mixed NLH/PLO) is read hand
by hand:

* ``contributed`` is every chip a seat put in (blinds, antes, the bring-in,
  bets, calls) less an uncalled bet returned to it; the small-blind part of
  ``posts small & big blinds`` is dead money;
* a fold, and ``mucks hand`` at the showdown (or ``mucked`` in the
  summary), is ``folded``;
* own cards come from ``Dealt to`` (every bracket: the cards held so far),
  ``shows`` and the summary's ``showed`` / ``mucked`` lines; a draw game's
  hand is the one shown at the end;
* a hand run twice or three times sends each board (``FIRST FLOP``,
  ``SECOND RIVER``...) as ``boards``;
* ``Rake X`` is the event's ``rake``; PokerStars rakes a true percentage of
  the pots, main pot first, and does not print its rate: when a hand has
  side pots open to different seats, the reader recovers the roundest rate
  that gives the recorded pots exactly and sends it as ``rake_ppm`` (see
  :func:`fit_rake_ppm`).

What the history recorded (every ``collected`` line, per run when the hand
was run again, the summary's amounts, the uncalled bets returned, the total
pot and the rake) goes in a :class:`~showdown_service.histories.hands.StarsOutcome`
for the comparison.

Knockout tournaments settle their bounties too (see :meth:`_Hand._knockout`):
each seat's ``players[].bounty`` (cents) is the seat line's ``($0.91
bounty)`` (a progressive knockout: ``bounty_cash_ppm`` 500000, PokerStars
pays half of a bounty won in cash and adds half to the winner's own), or, when
the seat lines show none, the header's middle amount (``$200+$50+$15``: prize
+ bounty + fee; a fixed knockout, ``bounty_cash_ppm`` 1000000). The bounty
lines (who won which bounty, how much cash and how much added) and the
finishes (``finished the tournament in 6th place``, ``wins the tournament``)
go in the record for the comparison. docs/replay.md lists every line read and
every quirk of the older formats.

An All-in Cash Out (``NAME cashed out the hand for $X | Cash Out Fee $Y``) is
read into the event's ``cashouts`` (docs/cashout.md; the format from the
public parser fpdb, jejellyroll-fr/fpdb-3, ``PokerStarsToFpdb.py``): the
offer X, the fee rule Y / (X + Y) to the half percent, the street of the last
bet (see :meth:`_Hand._cashed_out`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Final, NamedTuple

from showdown_messages import canonical_card
from showdown_rules.limits import PPM
from showdown_service.histories.chips import collected, give_back_to, pay_in
from showdown_service.histories.currency import currency_code
from showdown_service.histories.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    UnsupportedHand,
    unreadable,
)
from showdown_service.histories.games import Game, pokerstars_game
from showdown_service.histories.hands import (
    MAX_AMOUNT,
    TOO_LARGE,
    Bounty,
    HandRecord,
    Place,
    Purchase,
    Stakes,
    too_long,
)
from showdown_service.histories.patterns import (
    CARDS,
    CASHOUT_STREETS,
    RUN_SECTION,
    RUNS,
    STARS_SEAT,
    STREETS,
    SUMMARY_SEAT,
    TOURNAMENT_NUMBER,
    UNCALLED,
)
from showdown_service.histories.reader import Head, Reader
from showdown_service.histories.record import Player as _Player
from showdown_service.histories.record import Read, Where, fit_rake_ppm, record
from showdown_service.histories.room_play import PlayLog, with_play, without_play
from showdown_service.histories.stated import StatedCashOut, with_stated_cashouts

__all__ = ["fit_rake_ppm", "read_pokerstars"]

_START = re.compile(
    r"^(PokerStars|Full Tilt Poker) (?:(?:Zoom|Rush) )?(?:Home Game(?: Hand)?|Hand|Game) #(\d+):\s*(.*)$", re.I
)
"""A hand's first line; ``Full Tilt Poker Hand #`` is Full Tilt's client on the PokerStars platform (2016-), which
writes the PokerStars format."""
_PLATFORM_STARTS: Final = ("PokerStars ", "Full Tilt Poker Hand #")
_BUY_IN = re.compile(r"Tournament #\d+,\s*([^\s+]+)\+([^\s+]+)\+([^\s+]+)(?=\s|$)", re.I)
"""``$12.30+$12.25+$2.45``: prize + bounty + fee (a buy-in of two amounts has no bounty)."""
_PAREN = re.compile(r"\(([^()]*)\)")
_STAKES = re.compile(r"([^\s/,]*\d[\d.,]*)\s*/\s*([^\s/,]*\d[\d.,]*)")
_BUTTON_BLIND = re.compile(r"Button Blind (\S+)", re.I)
_DAY = re.compile(r"(\d{4})/(\d\d)/(\d\d) \d\d?:\d\d:\d\d( ET)?")
"""A header's date (``2014/11/08 0:40:18 WET [2014/11/07 19:40:18 ET]``): the ET one when written (the room's)."""
_TABLE = re.compile(
    r"^Table (?:ID )?'(.*)'(?:\(\d+\))?\s*(?:\d+-max\s*)?(?:\((?:Play|Real) Money\)\s*)*"
    r"(?:Seat #(\d+) is the button)?\s*$",
    re.I,
)
_COLLECTED = re.compile(r"^(.+?) collected (\S+) from (pot|main pot|side pot(?:-(\d+))?)\s*$")
_TOTAL = re.compile(r"^Total pot (\S+)(.*?)\|\s*Rake (\S+)")
_WON = re.compile(r"(?:won|collected) \((\S+)\)")
_RUN_BOARD = re.compile(r"^(?:(FIRST|SECOND|THIRD) )?Board \[([^\]]*)\]")
_BOUNTY = re.compile(r"^(.+?) wins the (\S+) bounty for eliminating (.+?)\s*$")
_SPLIT_BOUNTY = re.compile(r"^(.+?) split the (\S+) bounty for eliminating (.+?)\s*$")
_PROGRESSIVE = re.compile(
    r"^(.+?) wins (\S+) for (?:eliminating|splitting the elimination of) (.+?) "
    r"and their own bounty increases by (\S+) to (\S+?)\s*$"
)
_KNOCKOUT_WORDS: Final = (" bounty for eliminating ", " for eliminating ", " for splitting the elimination of ")
_FINISHED = re.compile(r"^(.+?) finished the tournament in (\d+)(?:st|nd|rd|th) place(?: and received (\S+?))?\.?\s*$")
_WINS_TOURNAMENT = re.compile(r"^(.+?) wins the tournament(?: and receives (\S+?))?(?: - congratulations!)?\s*$")
PKO_CASH_PPM: Final = 500_000
"""PokerStars progressive knockouts pay half of each bounty won in cash and add half to the winner's own."""
_CASHED_OUT = re.compile(r"^(.+?) cashed out the hand for (\S+?)(?: \| Cash Out Fee (\S+?))?\.?\s*$")
"""``NAME cashed out the hand for $X | Cash Out Fee $Y`` (All-in Cash Out; the fee may be absent): see
:meth:`_Hand._cashed_out`."""
_PURCHASE = re.compile(r"^(.+?) (re-buys|takes the add-on) and receives ([\d,]+) chips for (\S.*)$")
_PURCHASE_MARKERS: Final = (" re-buys and receives ", " takes the add-on")
_CAP_SUFFIX = re.compile(r" and has reached the \S+ cap$")
_RUPEES = re.compile(r"Rs\. (?=\d)")
_STUD_STREETS: Final = frozenset({"4th STREET", "5th STREET", "6th STREET", "7th STREET", "RIVER"})
_DRAWS: Final = frozenset({"FIRST DRAW", "SECOND DRAW", "THIRD DRAW", "DRAW"})
_OPENINGS: Final = frozenset({"HOLE CARDS", "DEALING HANDS", "3rd STREET", "PRE-FLOP"})
_SYMBOLS: Final = "$€£¥₹"
_FORCED: Final = (
    "posts small & big blinds ", "posts the ante ", "posts small blind ", "posts big blind ", "posts straddle ",
    "posts button blind ", "brings in for ", "brings-in for ", "brings in low for ",
)  # fmt: skip
"""How a forced bet's line begins: a blind (a dead small blind posted with the big one), an ante, a bring-in."""
_INFO: Final = (
    " joins the table",
    " leaves the table",
    " will be allowed to play after the button",
    " is disconnected",
    " is connected",
    " has timed out",
    " has returned",
    " was removed from the table",
    " said, ",
    " sits out",
    " is sitting out",
    " finished the tournament",
    " wins the tournament",
    " has reconnected",
    " wins an entry to",
    " wins a ticket",
    " is out of hand",
    "Table deposit",
    "Betting is capped",
    "No low hand qualified",
)
"""Lines about the table, the tournament or the chat rather than the chips of this hand: ignored."""
_PLAYER_INFO: Final = ("is sitting out", "sits out", "has timed out", "is disconnected", "is connected", "has returned")


class _Stakes(NamedTuple):
    big_blind: int | None
    """The live part of ``posts small & big blinds``: the big blind (fixed limit: the small bet)."""
    money: bool
    """Amounts are money (cents), not tournament or play chips."""


def read_pokerstars(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a PokerStars hand history file's ``text``, read, or the error that stopped it.

    No-break spaces read as spaces; ``Rs. 10`` (rupees) as ``₹10``; the
    archive style (every line indented by one space, ``*** # 1 ***``
    separator lines) as the plain one.
    """
    if "\xa0" in text:
        text = text.replace("\xa0", " ")
    if "Rs. " in text:
        text = _RUPEES.sub("₹", text)
    lines = [line.strip() for line in text.lstrip("\ufeff").splitlines()]
    starts = [k for k, line in enumerate(lines) if line.startswith(_PLATFORM_STARTS) and _START.match(line)]
    first = next((k for k, line in enumerate(lines) if line and not _separator(line)), 0)
    if not starts or first < starts[0]:
        yield HandSyntaxError(source, None, first + 1, "text before the first 'PokerStars Hand #' line")
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        hand = _Hand(lines, start, end, source)
        try:
            yield hand.read()
        except ReplayError as exc:
            exc.game = exc.game or hand.game_name
            yield exc
        except Exception as exc:  # hostile text the reader did not foresee: this hand's error
            yield unreadable(exc, source, hand.hand_id, hand.line, hand.game_name)


def _separator(line: str) -> bool:
    """An archive export's separator between hands (``*********** # 1 **************``)."""
    return line.startswith("**********")


@dataclass(slots=True)
class _Play:
    """The chips and cards of one hand as its lines are read (a reader's working state, changed line by line)."""

    game: Game
    stakes: _Stakes
    players: dict[str, _Player]
    seat_bounties: dict[str, int]
    sitting_out: set[str]
    purchases: list[Purchase]
    big_blind: int | None
    names: list[str] = field(init=False)
    """The seats' names, the longest first: 'Bob' must not take 'Bob 2: ...'."""
    seats: dict[int, str] = field(init=False)
    put: dict[str, int] = field(init=False)
    dead: dict[str, int] = field(init=False)
    bet: dict[str, int] = field(init=False)
    left: dict[str, int] = field(init=False)
    folded: set[str] = field(default_factory=set)
    mucked: set[str] = field(default_factory=set)
    acted: set[str] = field(default_factory=set)
    cards: dict[str, list[str]] = field(default_factory=dict)
    board: list[str] = field(default_factory=list)
    run_boards: dict[int, list[str]] = field(default_factory=dict)
    summary_boards: dict[int, list[str]] = field(default_factory=dict)
    community: list[str] = field(default_factory=list)
    """Stud: a river card dealt face up to everybody when the deck runs out."""
    returned: dict[int, int] = field(default_factory=dict)
    pots: dict[int, dict[int, int]] = field(default_factory=dict)
    by_run: dict[int, dict[int, dict[int, int]]] = field(default_factory=dict)
    summary: dict[int, int] = field(default_factory=dict)
    bounties: list[Bounty] = field(default_factory=list)
    places: list[Place] = field(default_factory=list)
    total: int | None = None
    rake: int | None = None
    runs: int = 1
    run: int = 0
    """The run whose showdown is being read (FIRST SHOW DOWN: 1)."""
    in_summary: bool = False
    drawing: bool = False
    unverifiable: str = ""
    log: PlayLog = field(default_factory=PlayLog)
    """The betting as phh-std's ``play`` will write it (:mod:`.room_play`)."""
    bring_in: int | None = None
    """Stud: the bring-in posted (phh-std's ``bring_in``)."""
    stud_dealt: dict[str, None] = field(default_factory=dict)
    """Stud: the seats dealt cards, in the order first dealt."""
    seventh: dict[str, int] = field(default_factory=dict)
    """Stud: each seat's seventh-street card in the play's actions (``d dh pN ??`` until its own is written)."""
    bet_board: int = 0
    """Board games: how many board cards were out at the last bet, call, raise, check or fold."""
    cashed: list[tuple[str, int, int, int]] = field(default_factory=list)
    """All-in Cash Outs written: ``(name, amount, fee, line index)``."""

    def __post_init__(self) -> None:
        self.names = sorted(self.players, key=len, reverse=True)
        self.seats = {p.seat: name for name, p in self.players.items()}
        self.put = dict.fromkeys(self.players, 0)
        self.dead = dict.fromkeys(self.players, 0)
        self.bet = dict.fromkeys(self.players, 0)
        self.left = {name: p.stack for name, p in self.players.items()}


class _Hand:
    """One PokerStars hand being read, lines ``start`` to ``end`` of the file."""

    def __init__(self, lines: list[str], start: int, end: int, source: str) -> None:
        self.lines = lines
        self.start = start
        self.end = end
        self.source = source
        self.hand_id = f"pokerstars:{start + 1}"
        self.line = start + 1
        self.total_line = end
        self.game_name = ""
        self.scale = 1
        self.buy_in_bounty: tuple[str, int] | None = None
        """The header's bounty as written and its line (0-based), when the buy-in has three amounts."""
        self.buy_in: tuple[str, str, str] | None = None
        """The header's prize, bounty and fee as written, when the buy-in has three amounts."""
        self.currency = ""
        self.stakes: Stakes | None = None
        """The header's blinds, betting and date (a rake schedule's lookup)."""
        self.code = ""
        """The currency as the history names it when it writes no symbol: ``Play Money`` (the table line's)."""
        self.bets: tuple[int, int] | None = None
        """Fixed limit: the header's small bet and big bet."""

    def _error(self, kind: type[ReplayError], k: int, reason: str) -> ReplayError:
        return kind(self.source, self.hand_id, k + 1, f"{reason}: {self.lines[k]!r}", self.game_name)

    def _header(self) -> tuple[Game, str | None, _Stakes]:
        k = self.start
        head = _START.match(self.lines[k])
        if head is None:  # pragma: no cover  # the hand starts where _START matched
            raise self._error(HandSyntaxError, k, "not a PokerStars hand header")
        room = "fulltilt" if head.group(1).lower() == "full tilt poker" else "pokerstars"
        self.hand_id = f"{room}:{head.group(2)}"
        title = head.group(3)
        named = pokerstars_game(title)
        if named.refused is not None:
            self.game_name = named.refused[0]
            raise UnsupportedHand(self.source, self.hand_id, k + 1, f"{named.refused[0]}: {named.refused[1]}")
        if named.game is None:
            reason = f"no game this reader knows is named in the header {title.strip()!r}"
            raise UnsupportedHand(self.source, self.hand_id, k + 1, reason)
        game = named.game
        self.game_name = game.name
        tournament = TOURNAMENT_NUMBER.search(title)
        if tournament and (buy_in := _BUY_IN.search(title)):
            self.buy_in_bounty = (buy_in.group(2), k)
            self.buy_in = (buy_in.group(1), buy_in.group(2), buy_in.group(3))
        self.currency = next((c for c in title if c in _SYMBOLS), "")
        stakes = _stakes(title, named.fixed_limit)
        money = any(c in text for text in stakes for c in _SYMBOLS) or any("." in text for text in stakes)
        self.scale = 100 if money else 1
        big_blind = self._chips(stakes[1], k) if len(stakes) > 1 and stakes[1] else None
        small_blind = None
        if stakes and stakes[0]:
            try:
                small_blind = self._chips(stakes[0], k)
            except ReplayError:  # read for a rake schedule only: a small blind the chips cannot hold is none
                small_blind = None
        limit = "no_limit" if "No Limit" in title else "pot_limit" if "Pot Limit" in title else ""
        self.stakes = Stakes(small_blind, big_blind, limit or ("fixed_limit" if named.fixed_limit else ""), _day(title))
        if named.fixed_limit and len(bets := _stakes(title, fixed_limit=False)) > 1:
            try:  # the betting's small bet and big bet, for its play (phh-std's small_bet and big_bet)
                self.bets = (self._chips(bets[0], k), self._chips(bets[1], k))
            except ReplayError:
                self.bets = None
        return game, tournament.group(1) if tournament else None, _Stakes(big_blind, money)

    def read(self) -> HandRecord:
        """The hand, read in one pass over its lines as written: the header, the table, the seats, then each line
        by what it is (:meth:`_line`), then the record (:meth:`_finish`)."""
        game, tournament, stakes = self._header()
        k = self.start + 1
        table = _TABLE.match(self.lines[k]) if k < self.end else None
        if table is None:
            raise self._error(HandSyntaxError, min(k, self.end - 1), "expected \"Table '...' Seat #N is the button\"")
        self.code = "Play Money" if "(Play Money)" in self.lines[k] else ""
        if "Hand cancelled" in self.lines[k : self.end]:
            reason = "cancelled hand: the history says 'Hand cancelled' and nothing was paid"
            code = currency_code(self.code or self.currency, tournament=tournament is not None)
            return HandRecord(
                self.source, self.hand_id, self.line, None, None, reason, False, game.name, currency_code=code
            )
        button = int(table.group(2)) if table.group(2) else None
        if button is None and not game.stud:
            raise self._error(HandSyntaxError, k, f"{game.name} needs the button: expected 'Seat #N is the button'")
        self.table = table.group(1) or "pokerstars"
        play, k = self._seats(game, stakes, k + 1)
        for at in range(k, self.end):
            self._line(play, at)
        return self._finish(play, tournament, button)

    def _seats(self, game: Game, stakes: _Stakes, k: int) -> tuple[_Play, int]:
        """The purchases written before the seats, then the seat lines: the hand's chips as they start, and the
        line after the last seat."""
        lines = self.lines
        players: dict[str, _Player] = {}
        seat_bounties: dict[str, int] = {}
        sitting_out: set[str] = set()
        purchases: list[Purchase] = []
        while k < self.end and any(marker in lines[k] for marker in _PURCHASE_MARKERS):
            purchases.append(self._purchase(lines[k], k, before_seats=True))  # bought before this hand
            k += 1
        while k < self.end and (seat_line := STARS_SEAT.match(lines[k])):
            number, name = int(seat_line.group(1)), seat_line.group(2)
            if seat_line.group(4):
                seat_bounties[name] = self._money(seat_line.group(4), k)
                self.currency = self.currency or next((c for c in seat_line.group(4) if c in _SYMBOLS), "")
            stack_text = seat_line.group(3)
            if self.scale == 1 and ("." in stack_text or stack_text[:1] in _SYMBOLS):
                self.scale = 100  # a cash game whose header's stakes were written without a currency
            players[name] = _Player(number, name, self._chips(stack_text, k))
            if "sitting out" in seat_line.group(5) or "out of hand" in seat_line.group(5):
                sitting_out.add(name)
            k += 1
        if len(players) < 2:
            raise self._error(HandSyntaxError, min(k, self.end - 1), "a hand needs two seats; seat lines expected")
        play = _Play(game, stakes, players, seat_bounties, sitting_out, purchases, stakes.big_blind)
        return play, k

    def _line(self, play: _Play, k: int) -> None:
        """One line of the hand after the seats, by what it is."""
        line = self.lines[k]
        if not line or _separator(line):
            return
        if line.startswith("*** "):
            self._section(play, line, k)
        elif play.in_summary:
            self._summary_line(play, line, k)
        elif m := _COLLECTED.match(line):
            self._collected(play, m, k)
        elif m := UNCALLED.match(line):
            self._uncalled(play, m, k)
        elif line.startswith("Dealt to "):
            self._dealt(play, line[len("Dealt to ") :], k)
        elif (actor := next((n for n in play.names if line.startswith(n + ": ")), None)) is not None:
            self._action(play, actor, line[len(actor) + 2 :].strip(), k)
        else:
            self._not_a_seat_s(play, line, k)

    def _section(self, play: _Play, line: str, k: int) -> None:
        """A ``*** ... ***`` line: a street (of a run), a draw, the show down (of a run), the summary."""
        game = play.game
        section = RUN_SECTION.match(line)
        if section is None:
            raise self._error(HandSyntaxError, k, "unknown section")
        again, name, rest = section.groups()
        if name == "SUMMARY" and not again:
            play.in_summary = True
        elif name == "SHOW DOWN":
            play.run = RUNS[again] if again else 0
            play.runs = max(play.runs, play.run)
        elif again and game.board and name in STREETS:
            number = RUNS[again]
            play.runs = max(play.runs, number)
            play.log.refuse("a hand run more than once")
            current = play.run_boards.setdefault(number, list(play.board))
            play.run_boards[number] = self._street(name, rest, current, k, game)
        elif not again and game.board and name in STREETS:
            before = len(play.board)
            play.board = self._street(name, rest, play.board, k, game)
            play.bet = dict.fromkeys(play.players, 0)
            play.log.actions.append(("", "db " + "".join(play.board[before:])))
        elif not again and game.exposed_flop_card and name == "PRE-FLOP":
            play.board = self._cards(" ".join(CARDS.findall(rest)), k)
            play.log.refuse("a flop card exposed before the flop")
            if len(play.board) != 1:
                raise self._error(ImpossibleAction, k, f"{game.name} exposes one flop card before the flop")
        elif game.stud and not again and name in _STUD_STREETS:
            play.bet = dict.fromkeys(play.players, 0)
            if name == "RIVER" and (shared := CARDS.findall(rest)):
                play.community = self._cards(" ".join(shared), k)
                play.log.refuse("a stud hand whose deck ran out (a card shared by all)")
            elif name in ("RIVER", "7th STREET"):  # the last card is dealt down: only the own seat's is written
                for dealt in play.stud_dealt:
                    if dealt not in play.folded:
                        play.seventh[dealt] = len(play.log.actions)
                        play.log.actions.append((dealt, "dh ??"))
        elif game.draw and (name in _DRAWS or f"{again} {name}" in _DRAWS):
            play.bet = dict.fromkeys(play.players, 0)
            play.drawing = True
        elif again or name not in _OPENINGS:
            raise self._error(HandSyntaxError, k, f"unknown section for {game.name}")

    def _summary_line(self, play: _Play, line: str, k: int) -> None:
        """A line of the summary: the total and rake, a run's board, the runs, a seat's result and shown cards."""
        if m := _TOTAL.match(line):
            play.total, play.rake = self._chips(m.group(1), k), self._chips(m.group(3), k)
            self.total_line = k + 1
        elif m := _RUN_BOARD.match(line):
            play.summary_boards[RUNS[m.group(1)] if m.group(1) else 0] = self._cards(m.group(2), k)
        elif line.startswith("Hand was run"):
            play.runs = max(play.runs, 3 if "three" in line else 2)
        elif m := SUMMARY_SEAT.match(line):
            seat, rest = int(m.group(1)), m.group(2)
            if won := _WON.findall(rest):
                play.summary[seat] = sum(self._chips(w, k) for w in won)
            if "(pot not awarded" in rest:
                play.unverifiable = (
                    f"All-in Cash Out: seat {seat}'s cashed-out hand won the run-out and the history pays its pot to "
                    "nobody ('pot not awarded as player cashed out'): the pots cannot be compared"
                )
            name = play.seats.get(seat)
            if name is not None:
                if rest.startswith(name):
                    rest = rest[len(name) :]  # 'PC [Mittel] showed [..]': a name may hold brackets
                shown = CARDS.findall(rest)
                if shown:
                    known = self._cards(shown[0], k)
                    if len(known) >= len(play.cards.get(name, ())):
                        play.cards[name] = known
                if " mucked" in rest and " showed [" not in rest:
                    play.mucked.add(name)

    def _collected(self, play: _Play, m: re.Match[str], k: int) -> None:
        """``NAME collected X from (main|side) pot``: what the history paid, per pot (and per run when run again)."""
        name = self._player_of(play, m.group(1), k)
        index = 0 if m.group(3) in ("pot", "main pot") else int(m.group(4) or 1)
        collected(play, play.players[name].seat, self._chips(m.group(2), k), index, play.run)

    def _uncalled(self, play: _Play, m: re.Match[str], k: int) -> None:
        """``Uncalled bet (X) returned to NAME``: back to the seat's stack, out of what it put in."""
        name = self._player_of(play, m.group(2), k)
        give_back_to(play, name, self._chips(m.group(1), k), k, self._error)

    def _dealt(self, play: _Play, rest: str, k: int) -> None:
        """``Dealt to NAME [cards]``: the cards a seat holds (the latest dealing replaces the earlier)."""
        name = next((n for n in play.names if rest.startswith(n + " [")), None)
        if name is None:
            raise self._error(ImpossibleAction, k, "cards dealt to a player with no seat")
        dealt = CARDS.findall(rest[len(name) :])
        if not dealt:
            raise self._error(HandSyntaxError, k, "expected 'Dealt to NAME [CARDS]'")
        play.cards[name] = self._cards(" ".join(dealt), k)
        if play.game.stud:  # the street's new cards (the last bracket); third street's two down cards unknown
            new = self._cards(dealt[-1], k) if len(dealt) > 1 else play.cards[name]
            hidden = "????" if len(dealt) == 1 and len(new) == 1 else ""
            if name in play.seventh:  # the own seat's down card on seventh street, known
                play.log.actions[play.seventh[name]] = (name, "dh " + "".join(new))
            else:
                play.log.actions.append((name, "dh " + hidden + "".join(new)))
                play.stud_dealt.setdefault(name, None)

    def _not_a_seat_s(self, play: _Play, line: str, k: int) -> None:
        """A line not of a seat's action: a bounty, a finish, a purchase, a cash-out, or information; else an
        error naming the line."""
        if found := self._bounty(line, k, play.players):
            play.bounties.append(found)
        elif m := _FINISHED.match(line):
            name = self._player_of(play, m.group(1), k)
            prize = self._money(m.group(3), k) if m.group(3) else None
            if too_long(m.group(2)) or int(m.group(2)) > MAX_AMOUNT:  # the report's JSON holds 64 bits
                raise self._error(HandSyntaxError, k, "a place beyond any field (2^53-1)")
            play.places.append(Place(name, play.players[name].seat, int(m.group(2)), prize, k + 1))
        elif m := _WINS_TOURNAMENT.match(line):
            name = self._player_of(play, m.group(1), k)
            prize = self._money(m.group(2), k) if m.group(2) else None
            play.places.append(Place(name, play.players[name].seat, 1, prize, k + 1, won=True))
        elif " finished the tournament in " in line:
            raise self._error(
                HandSyntaxError, k, "expected 'NAME finished the tournament in Nth place [and received $X.]'"
            )
        elif any(marker in line for marker in _PURCHASE_MARKERS):
            play.purchases.append(self._purchase(line, k, before_seats=False))
        elif m := _CASHED_OUT.match(line):
            self._cashed_out(play, m, k)
        elif line.startswith("STP added"):
            play.unverifiable = "Splash the Pot: the house added money to the pot"
        elif not (any(marker in line for marker in _INFO) or line.startswith(("Board ", "Hand was run"))):
            raise self._error(HandSyntaxError, k, "not a line of a PokerStars hand")

    def _cashed_out(self, play: _Play, m: re.Match[str], k: int) -> None:
        """``NAME cashed out the hand for $X | Cash Out Fee $Y``: PokerStars' All-in Cash Out, read into the
        event's ``cashouts`` (docs/cashout.md). The line does not name its street: PokerStars offers the cash-out
        once the betting is over (every seat but one all-in), before the cards still to come, so the street is
        the one the last bet, call or fold was made on. Format read from the public parser fpdb
        (jejellyroll-fr/fpdb-3, ``PokerStarsToFpdb.py`` and
        ``regression-test-files/cash/Stars/Flop/2025-NL-6max-USD-0.05-0.10.cashout.txt``)."""
        if not play.game.board or not play.stakes.money:
            play.unverifiable = (
                f"All-in Cash Out: {m.group(1)} cashed out the hand for {m.group(2)}, paid by equity rather than by "
                "the showdown (a cash-out is checked in a cash game with a board only)"
            )
            return
        name = self._player_of(play, m.group(1), k)
        fee = self._chips(m.group(3), k) if m.group(3) else 0
        play.cashed.append((name, self._chips(m.group(2), k), fee, k))

    def _action(self, play: _Play, name: str, action: str, k: int) -> None:
        """``NAME: action``: a seat's blind, ante, bet, call, raise, check, fold, draw, show or muck."""
        allin = False
        while True:
            if action.endswith(" and is all-in"):
                action, allin = action[: -len(" and is all-in")], True
            elif capped := _CAP_SUFFIX.search(action):
                action = action[: capped.start()]
                play.log.refuse("a capped betting round")
            else:
                break
        verb, _, rest = action.partition(" ")
        if verb in ("bets", "calls", "raises", "checks", "folds", "brings"):
            play.drawing = False
            play.bet_board = len(play.board)
        if action.startswith(_FORCED):
            self._forced(play, name, action, k, allin=allin)
        elif verb in ("folds", "checks", "calls", "bets", "raises"):
            self._wager(play, name, verb, rest, k)
        elif verb == "discards" or action.startswith("stands pat"):
            if not play.game.draw:
                raise self._error(ImpossibleAction, k, f"{play.game.name} has no draw")
            if not play.drawing:
                play.bet = dict.fromkeys(play.players, 0)  # single draw: no section line before the draw
                play.drawing = True
            thrown = CARDS.findall(rest)
            count = re.match(r"(\d+) cards?\b", rest) if verb == "discards" else None
            if verb == "discards" and count is None:
                play.log.refuse("a discard that does not say how many cards")
            play.log.actions.append((name, f"sd {'??' * int(count.group(1))}" if count else "sd"))
            if verb == "discards" and thrown and name in play.cards:
                gone = set(self._cards(thrown[0], k))
                play.cards[name] = [c for c in play.cards[name] if c not in gone]
        elif verb == "shows":
            if shown := CARDS.findall(rest):
                play.cards[name] = self._cards(shown[0], k)
        elif action.startswith("mucks"):
            play.mucked.add(name)
            if shown := CARDS.findall(rest):
                play.cards[name] = self._cards(shown[0], k)
        elif not (action.startswith(("doesn't show hand", *_PLAYER_INFO)) or "Table deposit" in action):
            raise self._error(HandSyntaxError, k, "not a PokerStars action")
        if allin and play.left[name] != 0:
            raise self._error(ChipsDoNotAddUp, k, f"{name} is all-in with {play.left[name]} behind")

    def _forced(self, play: _Play, name: str, action: str, k: int, *, allin: bool) -> None:
        """A blind, a straddle, an ante or a bring-in (``posts small & big blinds``: the small blind is dead)."""
        if action.startswith("posts small & big blinds "):
            play.log.refuse("a dead small blind (posts small & big blinds)")
            chips = self._chips(action.rsplit(" ", 1)[1], k)
            live = min(chips, play.big_blind) if play.big_blind is not None else chips
            self._pay(play, name, chips - live, k, to_bet=False, is_dead=True)
            self._pay(play, name, live, k)
        elif action.startswith("posts the ante "):
            chips = self._chips(action.rsplit(" ", 1)[1], k)
            self._pay(play, name, chips, k, to_bet=False)
            play.log.antes[name] = play.log.antes.get(name, 0) + chips
        elif action.startswith(("posts small blind ", "posts big blind ", "posts straddle ", "posts button blind ")):
            chips = self._chips(action.rsplit(" ", 1)[1], k)
            self._pay(play, name, chips, k)
            if action.startswith(("posts small blind ", "posts big blind ")):
                play.log.blind(name, chips, big=action.startswith("posts big"))
            else:
                play.log.refuse("a straddle or a button blind")
            if action.startswith(("posts big blind ", "posts button blind ")) and not allin:
                play.big_blind = chips if play.stakes.big_blind is None else play.big_blind
        else:  # brings in
            chips = self._chips(action.rsplit(" ", 1)[1], k)
            self._pay(play, name, chips, k)
            if play.bring_in is not None:
                play.log.refuse("a second bring-in")
            play.bring_in = chips
            play.log.actions.append((name, "pb"))

    def _wager(self, play: _Play, name: str, verb: str, rest: str, k: int) -> None:
        """A fold, check, call, bet or raise, each checked against the bet faced and the stack behind."""
        bet = play.bet
        if verb == "folds":
            play.folded.add(name)
            play.log.actions.append((name, "f"))
            if shown := CARDS.findall(rest):
                play.cards.setdefault(name, self._cards(shown[0], k))
        elif verb == "checks":
            if bet[name] < max(bet.values()):
                raise self._error(ImpossibleAction, k, f"{name} checks facing a bet")
            play.log.actions.append((name, "cc"))
        elif verb in ("calls", "bets"):
            chips = self._chips(rest, k)
            if verb == "calls" and bet[name] + chips > max(bet.values()):
                raise self._error(ImpossibleAction, k, f"{name} calls more than the bet")
            self._pay(play, name, chips, k)
            play.log.actions.append((name, "cc" if verb == "calls" else f"cbr {bet[name]}"))
        else:  # raises
            by, to = (part.strip() for part in rest.split(" to ", 1)) if " to " in rest else ("", "")
            if not to:
                raise self._error(HandSyntaxError, k, "expected 'raises X to Y'")
            raise_by, raise_to = self._chips(by, k), self._chips(to, k)
            before = max(bet.values())
            # 'raises X to Y': X is Y less the bet faced (the usual writing) or Y less the raiser's own bet
            # (heads-up 'Match' tournaments write what the raiser adds); Y decides, X must be one of them
            if raise_to <= before or raise_by not in (raise_to - before, raise_to - bet[name]):
                raise self._error(
                    ChipsDoNotAddUp, k, f"a raise to {raise_to} over a bet of {before} is {raise_to - before}"
                )
            self._pay(play, name, raise_to - bet[name], k)
            play.log.actions.append((name, f"cbr {raise_to}"))

    def _player_of(self, play: _Play, text: str, at: int) -> str:
        if text not in play.players:
            raise self._error(ImpossibleAction, at, f"{text!r} has no seat in this hand")
        return text

    def _pay(self, play: _Play, name: str, chips: int, at: int, *, to_bet: bool = True, is_dead: bool = False) -> None:
        """Chips from a seat's stack into the pot (live, or dead: a small blind posted with the big one), and into
        the street's bet unless ``to_bet`` is false (an ante): :func:`~.chips.pay_in`."""
        pay_in(play, name, chips, at, self._error, to_bet=to_bet, is_dead=is_dead)

    def _finish(self, play: _Play, tournament: str | None, button: int | None) -> HandRecord:
        """The hand read: its record, or why it cannot be checked (a cash-out, the house's money)."""
        game = play.game
        if play.unverifiable:
            return HandRecord(
                self.source, self.hand_id, self.line, None, None, play.unverifiable, False, game.name,
                tuple(play.bounties), tuple(play.places), self.currency, tuple(play.purchases),
                currency_code=currency_code(self.code or self.currency, tournament=tournament is not None),
            )  # fmt: skip
        if play.total is None or play.rake is None:
            raise HandSyntaxError(
                self.source, self.hand_id, self.end, "the hand has no 'Total pot ... | Rake' line", game.name
            )
        in_hand = [n for n in play.players if n not in play.sitting_out or n in play.acted]
        if len(in_hand) < 2:
            raise ImpossibleAction(
                self.source,
                self.hand_id,
                self.line,
                f"{len(in_hand)} seat(s) in the hand; the others sit out",
                game.name,
            )
        boards = self._boards(game, play.board, play.runs, play.run_boards, play.summary_boards)
        heads, cash_ppm = self._knockout(tournament, play.seat_bounties, play.bounties, in_hand)
        hand = Read(
            game, tournament, button, [play.players[n] for n in in_hand], play.put, play.dead, play.folded,
            play.mucked, play.cards, boards, play.community, play.returned, play.pots, play.by_run, play.summary,
            play.total, play.rake, tuple(play.bounties), tuple(play.places), heads, cash_ppm,
        )  # fmt: skip
        for purchase in play.purchases:
            if purchase.player not in play.players:
                raise self._error(ImpossibleAction, purchase.line - 1, f"{purchase.player!r} has no seat in this hand")
        where = Where(self.source, self.hand_id, self.line, self.total_line, self.table, self.currency, self.code)
        read = record(hand, where)
        if play.cashed:
            read = self._with_cashouts(play, read)
        if play.purchases:
            read = read._replace(purchases=tuple(play.purchases))
        if (amounts := self._buy_in_amounts()) is not None:
            read = read._replace(buy_in_bounty=amounts[1])
        if read.event is not None and self.stakes is not None:  # the betting too, played when the hand settles
            limit, big = self.stakes.limit, self.stakes.big_blind
            small_bet, big_bet = self.bets or (None, None)
            event = with_play(
                read.event, play.log, limit, big, button, self.source, self.line,
                small_bet=small_bet, big_bet=big_bet, bring_in=play.bring_in, draws=game.draws or None,
            )  # fmt: skip
            read = read._replace(event=event) if event is not None else without_play(read, play.log)
        return read._replace(stakes=self.stakes)

    def _with_cashouts(self, play: _Play, read: HandRecord) -> HandRecord:
        """``read`` with the All-in Cash Outs written, on the street of the last bet (see :meth:`_cashed_out`)."""
        street = CASHOUT_STREETS.get(play.bet_board)
        if street is None:
            raise self._error(ImpossibleAction, play.cashed[0][3], "a cash-out after the river's betting: no card left")
        taken = [StatedCashOut(play.players[name].seat, street, amount, fee) for name, amount, fee, _ in play.cashed]
        return with_stated_cashouts(read, taken)

    def _buy_in_amounts(self) -> tuple[int, int, int] | None:
        """The header's prize, bounty and fee in cents; ``None`` without a three-amount buy-in (or one that does
        not read as money: it is then no knockout's, and what needs it says so)."""
        if self.buy_in is None:
            return None
        try:
            prize, bounty, fee = (self._money(text, self.start) for text in self.buy_in)
        except ReplayError:
            return None
        return prize, bounty, fee

    def _purchase(self, line: str, k: int, *, before_seats: bool) -> Purchase:
        """``X re-buys and receives N chips for $C`` or ``X takes the add-on and receives N chips for $C``."""
        m = _PURCHASE.match(line)
        if m is None:
            raise self._error(
                HandSyntaxError, k, "expected 'NAME re-buys (or takes the add-on) and receives N chips for COST'"
            )
        kind = "rebuy" if m.group(2) == "re-buys" else "add_on"
        chips = self._amount(m.group(3), k, 1)
        if chips < 1:
            raise self._error(HandSyntaxError, k, "a purchase of no chips")
        return Purchase(m.group(1), kind, chips, m.group(4), k + 1, before_seats, self._bought_bounty(m.group(4)))

    def _bought_bounty(self, cost: str) -> int | None:
        """The bounty (cents) a purchase costing ``cost`` buys, by the buy-in's prize + bounty + fee: the buy-in's
        bounty (a fresh starting bounty) when it costs prize + bounty (with the fee or without), 0 when it costs
        the prize alone (with the fee or without); ``None`` when that cannot be told (no three-amount buy-in, a
        cost in StarsCoin, any other price)."""
        amounts = self._buy_in_amounts()
        if amounts is None:
            return None
        prize, bounty, fee = amounts
        try:
            paid = self._money(cost.split(maxsplit=1)[0], self.start)
        except ReplayError:
            return None
        return bounty if paid in (prize + bounty, prize + bounty + fee) else 0 if paid in (prize, prize + fee) else None

    def _street(self, street: str, rest: str, current: list[str], k: int, game: Game) -> list[str]:
        """The board after ``*** FLOP *** [..] [..]`` (every bracket: the board so far), checked against ``current``."""
        groups = CARDS.findall(rest)
        total = self._cards(" ".join(groups), k) if groups else []
        size = STREETS[street]
        before = {3: 0, 4: 3, 5: 4}[size]
        if game.exposed_flop_card and street == "FLOP":
            before = 1
        if total[: len(current)] != current:
            raise self._error(
                ImpossibleAction, k, f"the {street.lower()} repeats a board of {total[: len(current)]}, not {current}"
            )
        new = total[len(current) :]
        if (len(current), len(new)) != (before, size - before):
            raise self._error(
                ImpossibleAction,
                k,
                f"{len(new)} card(s) dealt onto {len(current)} board card(s); "
                f"the {street.lower()} is {size - before} onto {before}",
            )
        return total

    def _boards(
        self,
        game: Game,
        board: list[str],
        runs: int,
        run_boards: dict[int, list[str]],
        summary_boards: dict[int, list[str]],
    ) -> list[list[str]]:
        """Each board of the hand (one unless it was run again), as the streets and the summary wrote them."""
        if not game.board:
            return [[]]
        if runs == 1:
            written = summary_boards.get(0)
            if written is not None and board and written != board:
                raise ImpossibleAction(
                    self.source, self.hand_id, self.total_line, f"the summary's board {written} is not {board}"
                )
            return [board or written or []]
        out = []
        for number in range(1, runs + 1):
            streets = run_boards.get(number)
            written = summary_boards.get(number)
            if streets is not None and written is not None and streets != written:
                raise ImpossibleAction(
                    self.source,
                    self.hand_id,
                    self.total_line,
                    f"run {number}: the summary's board {written} is not {streets}",
                )
            found = streets or written
            if found is None:
                raise ImpossibleAction(
                    self.source, self.hand_id, self.total_line, f"the hand was run {runs} times but run {number} "
                    "has no board",
                )  # fmt: skip
            out.append(found)
        return out

    def _knockout(
        self, tournament: str | None, seat_bounties: dict[str, int], bounties: list[Bounty], in_hand: list[str]
    ) -> tuple[dict[str, int] | None, int | None]:
        """The bounty on each head at the start of the hand (cents) and the cash part (ppm), or ``(None, None)``.

        Seat lines with bounties: those (a seat line without one: 0), a fixed knockout (``bounty_cash_ppm``
        1000000) when the hand's bounty lines are ``wins the $X bounty`` / ``split the $X bounty``, else a
        progressive knockout at PokerStars' 50% (:data:`PKO_CASH_PPM`); a history whose increases say otherwise is
        a mismatch that names them. No seat bounties: the header's middle amount on every head, a fixed
        knockout, unless the hand has progressive lines (a progressive knockout without its seats' bounties
        cannot be settled: its lines are reported, not checked).
        """
        progressive = any(b.kind == "progressive" for b in bounties)
        if seat_bounties:
            fixed = bool(bounties) and not progressive
            return {name: seat_bounties.get(name, 0) for name in in_hand}, PPM if fixed else PKO_CASH_PPM
        if tournament is None or self.buy_in_bounty is None or progressive:
            return None, None
        text, k = self.buy_in_bounty
        bounty = self._money(text, k)
        return dict.fromkeys(in_hand, bounty), PPM

    def _bounty(self, line: str, k: int, players: dict[str, _Player]) -> Bounty | None:
        """A knockout line, read; ``None`` when ``line`` is no knockout line; an error when it looks like one
        (``for eliminating``) but is none of the forms."""
        if " bount" not in line and not any(words in line for words in _KNOCKOUT_WORDS):
            return None
        winners: tuple[str, ...]
        increase = now = ""
        if m := _PROGRESSIVE.match(line):
            winners = (m.group(1),)
            kind, amount, eliminated = "progressive", m.group(2), m.group(3)
            increase, now = m.group(4), m.group(5).rstrip(".")
        elif m := _SPLIT_BOUNTY.match(line):
            winners = tuple(w.strip() for w in m.group(1).split(", "))
            kind, amount, eliminated = "split knockout", m.group(2), m.group(3)
        elif m := _BOUNTY.match(line):
            winners = (m.group(1),)
            kind, amount, eliminated = "knockout", m.group(2), m.group(3)
        elif any(words in line for words in _KNOCKOUT_WORDS):
            raise self._error(
                HandSyntaxError,
                k,
                "not a knockout line: expected 'X wins the $B bounty for eliminating Y', 'X, Z split the $B bounty "
                "for eliminating Y' or 'X wins $C for eliminating Y and their own bounty increases by $A to $N'",
            )
        else:
            return None
        cents = self._money(amount, k)
        grew = self._money(increase, k) if increase else 0
        total = self._money(now, k) if now else 0
        seats = tuple(players[w].seat for w in winners if w in players)
        return Bounty(kind, winners, seats, eliminated, amount, increase, now, k + 1, cents, grew, total)

    def _chips(self, text: str, k: int) -> int:
        """``$1,234.56`` -> 123456 (cents) in a cash game; ``1500`` -> 1500 in a tournament."""
        return self._amount(text, k, self.scale)

    def _money(self, text: str, k: int) -> int:
        """A bounty or a prize in cents, whatever the hand's chips: ``$0.91`` -> 91, ``$665`` -> 66500."""
        return self._amount(text, k, 100)

    def _amount(self, text: str, k: int, scale: int) -> int:
        raw = text.strip().rstrip(".,")
        clean = raw.lstrip(_SYMBOLS).replace(",", "")
        whole, dot, cents = clean.partition(".")
        if not whole.isdigit() or (dot and not (cents.isdigit() and len(cents) <= 2)) or (dot and scale == 1):
            raise self._error(HandSyntaxError, k, f"{raw!r} is not an amount")
        if too_long(whole) or (amount := int(whole) * scale + (int(cents.ljust(2, "0")) if dot else 0)) > MAX_AMOUNT:
            raise self._error(HandSyntaxError, k, f"{raw!r} {TOO_LARGE}")
        return amount

    def _cards(self, text: str, k: int) -> list[str]:
        out = []
        for token in text.split():
            card = canonical_card(token)
            if card is None:
                raise self._error(HandSyntaxError, k, f"{token!r} is not a card")
            out.append(card)
        return out


def _day(title: str) -> date | None:
    """The day a header dates its hand: the ET date when it writes one, else the first; ``None`` without one."""
    found = _DAY.findall(title)
    chosen = next((d for d in found if d[3]), found[0] if found else None)
    if chosen is None:
        return None
    try:
        return date(int(chosen[0]), int(chosen[1]), int(chosen[2]))
    except ValueError:
        return None


def _stakes(title: str, fixed_limit: bool) -> tuple[str, ...]:
    """``(small, big)`` as written in the header, the big blind second (fixed limit: the small bet is the big
    blind; 6+ Hold'em: the button blind); ``()`` when the header writes none."""
    button_blind = _BUTTON_BLIND.search(title)
    if button_blind:
        return ("", button_blind.group(1))
    for group in _PAREN.findall(title):
        if m := _STAKES.search(group):
            small, big = m.group(1), m.group(2)
            return (small, small) if fixed_limit else (small, big)
    return ()


def _detect(head: Head) -> bool:
    """A PokerStars hand (``PokerStars Hand #``, ``PokerStars Game #``, ...; a tournament summary, ``PokerStars
    Tournament #``, is no hand history) or a Full Tilt hand on the PokerStars platform (``Full Tilt Poker Hand #``),
    which writes the PokerStars format."""
    line = head.line
    if line.startswith("PokerStars "):
        return not line.startswith("PokerStars Tournament #")
    return line.startswith("Full Tilt Poker Hand #")


READER: Final = Reader("pokerstars", _detect, read_pokerstars)
