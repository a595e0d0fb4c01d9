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
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final, NamedTuple

from showdown_messages import canonical_card
from showdown_rules.limits import PPM
from showdown_service.histories.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    UnsupportedHand,
    unreadable,
)
from showdown_service.histories.games import Game, pokerstars_game
from showdown_service.histories.hands import MAX_AMOUNT, TOO_LARGE, Bounty, HandRecord, Place, Purchase, too_long
from showdown_service.histories.record import Player as _Player
from showdown_service.histories.record import Read, Where, fit_rake_ppm, record

__all__ = ["fit_rake_ppm", "read_pokerstars"]

_START = re.compile(
    r"^(PokerStars|Full Tilt Poker) (?:(?:Zoom|Rush) )?(?:Home Game(?: Hand)?|Hand|Game) #(\d+):\s*(.*)$", re.I
)
"""A hand's first line; ``Full Tilt Poker Hand #`` is Full Tilt's client on the PokerStars platform (2016-), which
writes the PokerStars format."""
_PLATFORM_STARTS: Final = ("PokerStars ", "Full Tilt Poker Hand #")
_TOURNAMENT = re.compile(r"Tournament #(\d+)", re.I)
_BUY_IN = re.compile(r"Tournament #\d+,\s*([^\s+]+)\+([^\s+]+)\+([^\s+]+)(?=\s|$)", re.I)
"""``$12.30+$12.25+$2.45``: prize + bounty + fee (a buy-in of two amounts has no bounty)."""
_PAREN = re.compile(r"\(([^()]*)\)")
_STAKES = re.compile(r"([^\s/,]*\d[\d.,]*)\s*/\s*([^\s/,]*\d[\d.,]*)")
_BUTTON_BLIND = re.compile(r"Button Blind (\S+)", re.I)
_TABLE = re.compile(
    r"^Table (?:ID )?'(.*)'(?:\(\d+\))?\s*(?:\d+-max\s*)?(?:\((?:Play|Real) Money\)\s*)*"
    r"(?:Seat #(\d+) is the button)?\s*$",
    re.I,
)
_SEAT = re.compile(r"^Seat (\d+): (.+) \(([^()\s]+) in chips(?:, ([^()\s]+) bounty)?[^()]*\)(.*)$")
_COLLECTED = re.compile(r"^(.+?) collected (\S+) from (pot|main pot|side pot(?:-(\d+))?)\s*$")
_UNCALLED = re.compile(r"^Uncalled bet \((\S+)\) returned to (.+?)\s*$")
_TOTAL = re.compile(r"^Total pot (\S+)(.*?)\|\s*Rake (\S+)")
_SUMMARY_SEAT = re.compile(r"^Seat (\d+): (.*)$")
_WON = re.compile(r"(?:won|collected) \((\S+)\)")
_CARDS = re.compile(r"\[([^\]]*)\]")
_SECTION = re.compile(r"^\*\*\* (?:(FIRST|SECOND|THIRD) )?(.+?) \*\*\*\s*(.*)$")
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
_CASHED_OUT = re.compile(r"^(.+?) cashed out the hand for (\S+)")
_PURCHASE = re.compile(r"^(.+?) (re-buys|takes the add-on) and receives ([\d,]+) chips for (\S.*)$")
_PURCHASE_MARKERS: Final = (" re-buys and receives ", " takes the add-on")
_CAP_SUFFIX = re.compile(r" and has reached the \S+ cap$")
_RUPEES = re.compile(r"Rs\. (?=\d)")
_RUNS: Final = {"FIRST": 1, "SECOND": 2, "THIRD": 3}
_BOARD_STREETS: Final = {"FLOP": 3, "TURN": 4, "RIVER": 5}
"""Board games: the board's size after each street."""
_STUD_STREETS: Final = frozenset({"4th STREET", "5th STREET", "6th STREET", "7th STREET", "RIVER"})
_DRAWS: Final = frozenset({"FIRST DRAW", "SECOND DRAW", "THIRD DRAW", "DRAW"})
_OPENINGS: Final = frozenset({"HOLE CARDS", "DEALING HANDS", "3rd STREET", "PRE-FLOP"})
_SYMBOLS: Final = "$€£¥₹"
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
        tournament = _TOURNAMENT.search(title)
        if tournament and (buy_in := _BUY_IN.search(title)):
            self.buy_in_bounty = (buy_in.group(2), k)
            self.buy_in = (buy_in.group(1), buy_in.group(2), buy_in.group(3))
        self.currency = next((c for c in title if c in _SYMBOLS), "")
        stakes = _stakes(title, named.fixed_limit)
        money = any(c in text for text in stakes for c in _SYMBOLS) or any("." in text for text in stakes)
        self.scale = 100 if money else 1
        big_blind = self._chips(stakes[1], k) if len(stakes) > 1 and stakes[1] else None
        return game, tournament.group(1) if tournament else None, _Stakes(big_blind, money)

    def read(self) -> HandRecord:  # one pass over the hand's lines, as written
        lines = self.lines
        game, tournament, stakes = self._header()
        k = self.start + 1
        table = _TABLE.match(lines[k]) if k < self.end else None
        if table is None:
            raise self._error(HandSyntaxError, min(k, self.end - 1), "expected \"Table '...' Seat #N is the button\"")
        if "Hand cancelled" in lines[k : self.end]:
            reason = "cancelled hand: the history says 'Hand cancelled' and nothing was paid"
            return HandRecord(self.source, self.hand_id, self.line, None, None, reason, False, game.name)
        button = int(table.group(2)) if table.group(2) else None
        if button is None and not game.stud:
            raise self._error(HandSyntaxError, k, f"{game.name} needs the button: expected 'Seat #N is the button'")
        self.table = table.group(1) or "pokerstars"
        players: dict[str, _Player] = {}
        seat_bounties: dict[str, int] = {}
        sitting_out: set[str] = set()
        k += 1
        purchases: list[Purchase] = []
        while k < self.end and any(marker in lines[k] for marker in _PURCHASE_MARKERS):
            purchases.append(self._purchase(lines[k], k, before_seats=True))  # bought before this hand
            k += 1
        while k < self.end and (seat_line := _SEAT.match(lines[k])):
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
        names = sorted(players, key=len, reverse=True)  # the longest name first: 'Bob' must not take 'Bob 2: ...'
        seats = {p.seat: name for name, p in players.items()}
        big_blind = stakes.big_blind

        put = dict.fromkeys(players, 0)
        dead = dict.fromkeys(players, 0)
        bet = dict.fromkeys(players, 0)
        left = {name: p.stack for name, p in players.items()}
        folded: set[str] = set()
        mucked: set[str] = set()
        acted: set[str] = set()
        cards: dict[str, list[str]] = {}
        board: list[str] = []
        run_boards: dict[int, list[str]] = {}
        summary_boards: dict[int, list[str]] = {}
        community: list[str] = []  # stud: a river card dealt face up to everybody when the deck runs out
        returned: dict[int, int] = {}
        pots: dict[int, dict[int, int]] = {}
        by_run: dict[int, dict[int, dict[int, int]]] = {}
        summary: dict[int, int] = {}
        bounties: list[Bounty] = []
        places: list[Place] = []
        total = rake = None
        runs = 1
        run = 0  # the run whose showdown is being read (FIRST SHOW DOWN: 1)
        in_summary = drawing = False
        unverifiable = ""

        def player_of(text: str, at: int) -> str:
            if text not in players:
                raise self._error(ImpossibleAction, at, f"{text!r} has no seat in this hand")
            return text

        def pay(name: str, chips: int, at: int, *, to_bet: bool = True, is_dead: bool = False) -> None:
            if name in folded:
                raise self._error(ImpossibleAction, at, f"{name} acts after folding")
            if chips > left[name]:
                raise self._error(ChipsDoNotAddUp, at, f"{name} puts in {chips} with {left[name]} behind")
            left[name] -= chips
            acted.add(name)
            if is_dead:
                dead[name] += chips
            else:
                put[name] += chips
            if to_bet:
                bet[name] += chips

        while k < self.end:
            line = lines[k]
            if not line or _separator(line):
                k += 1
                continue
            if line.startswith("*** "):
                section = _SECTION.match(line)
                if section is None:
                    raise self._error(HandSyntaxError, k, "unknown section")
                again, name, rest = section.groups()
                if name == "SUMMARY" and not again:
                    in_summary = True
                elif name == "SHOW DOWN":
                    run = _RUNS[again] if again else 0
                    runs = max(runs, run)
                elif again and game.board and name in _BOARD_STREETS:
                    number = _RUNS[again]
                    runs = max(runs, number)
                    current = run_boards.setdefault(number, list(board))
                    run_boards[number] = self._street(name, rest, current, k, game)
                elif not again and game.board and name in _BOARD_STREETS:
                    board = self._street(name, rest, board, k, game)
                    bet = dict.fromkeys(players, 0)
                elif not again and game.exposed_flop_card and name == "PRE-FLOP":
                    board = self._cards(" ".join(_CARDS.findall(rest)), k)
                    if len(board) != 1:
                        raise self._error(ImpossibleAction, k, f"{game.name} exposes one flop card before the flop")
                elif game.stud and not again and name in _STUD_STREETS:
                    bet = dict.fromkeys(players, 0)
                    if name == "RIVER" and (shared := _CARDS.findall(rest)):
                        community = self._cards(" ".join(shared), k)
                elif game.draw and (name in _DRAWS or f"{again} {name}" in _DRAWS):
                    bet = dict.fromkeys(players, 0)
                    drawing = True
                elif again or name not in _OPENINGS:
                    raise self._error(HandSyntaxError, k, f"unknown section for {game.name}")
                k += 1
                continue
            if in_summary:
                if m := _TOTAL.match(line):
                    total, rake = self._chips(m.group(1), k), self._chips(m.group(3), k)
                    self.total_line = k + 1
                elif m := _RUN_BOARD.match(line):
                    summary_boards[_RUNS[m.group(1)] if m.group(1) else 0] = self._cards(m.group(2), k)
                elif line.startswith("Hand was run"):
                    runs = max(runs, 3 if "three" in line else 2)
                elif m := _SUMMARY_SEAT.match(line):
                    seat, rest = int(m.group(1)), m.group(2)
                    if won := _WON.findall(rest):
                        summary[seat] = sum(self._chips(w, k) for w in won)
                    name = seats.get(seat)
                    if name is not None:
                        if rest.startswith(name):
                            rest = rest[len(name) :]  # 'PC [Mittel] showed [..]': a name may hold brackets
                        shown = _CARDS.findall(rest)
                        if shown:
                            known = self._cards(shown[0], k)
                            if len(known) >= len(cards.get(name, ())):
                                cards[name] = known
                        if " mucked" in rest and " showed [" not in rest:
                            mucked.add(name)
                k += 1
                continue
            if m := _COLLECTED.match(line):
                name = player_of(m.group(1), k)
                index = 0 if m.group(3) in ("pot", "main pot") else int(m.group(4) or 1)
                seat = players[name].seat
                chips = self._chips(m.group(2), k)
                pot = pots.setdefault(index, {})
                pot[seat] = pot.get(seat, 0) + chips
                if run:
                    part = by_run.setdefault(run, {}).setdefault(index, {})
                    part[seat] = part.get(seat, 0) + chips
                k += 1
                continue
            if m := _UNCALLED.match(line):
                name = player_of(m.group(2), k)
                chips = self._chips(m.group(1), k)
                if chips > put[name]:
                    raise self._error(ChipsDoNotAddUp, k, f"{name} gets back more than it put in")
                put[name] -= chips
                left[name] += chips
                returned[players[name].seat] = returned.get(players[name].seat, 0) + chips
                k += 1
                continue
            if line.startswith("Dealt to "):
                rest = line[len("Dealt to ") :]
                name = next((n for n in names if rest.startswith(n + " [")), None)
                if name is None:
                    raise self._error(ImpossibleAction, k, "cards dealt to a player with no seat")
                dealt = _CARDS.findall(rest[len(name) :])
                if not dealt:
                    raise self._error(HandSyntaxError, k, "expected 'Dealt to NAME [CARDS]'")
                cards[name] = self._cards(" ".join(dealt), k)
                k += 1
                continue
            name = next((n for n in names if line.startswith(n + ": ")), None)
            if name is None:
                if found := self._bounty(line, k, players):
                    bounties.append(found)
                elif m := _FINISHED.match(line):
                    name = player_of(m.group(1), k)
                    prize = self._money(m.group(3), k) if m.group(3) else None
                    if too_long(m.group(2)) or int(m.group(2)) > MAX_AMOUNT:  # the report's JSON holds 64 bits
                        raise self._error(HandSyntaxError, k, "a place beyond any field (2^53-1)")
                    places.append(Place(name, players[name].seat, int(m.group(2)), prize, k + 1))
                elif m := _WINS_TOURNAMENT.match(line):
                    name = player_of(m.group(1), k)
                    prize = self._money(m.group(2), k) if m.group(2) else None
                    places.append(Place(name, players[name].seat, 1, prize, k + 1, won=True))
                elif " finished the tournament in " in line:
                    raise self._error(
                        HandSyntaxError, k, "expected 'NAME finished the tournament in Nth place [and received $X.]'"
                    )
                elif any(marker in line for marker in _PURCHASE_MARKERS):
                    purchases.append(self._purchase(line, k, before_seats=False))
                elif m := _CASHED_OUT.match(line):
                    unverifiable = (
                        f"All-in Cash Out: {m.group(1)} cashed out the hand for {m.group(2)}, paid as insurance "
                        "rather than by the showdown"
                    )
                elif line.startswith("STP added"):
                    unverifiable = "Splash the Pot: the house added money to the pot"
                elif not (any(marker in line for marker in _INFO) or line.startswith(("Board ", "Hand was run"))):
                    raise self._error(HandSyntaxError, k, "not a line of a PokerStars hand")
                k += 1
                continue
            action = line[len(name) + 2 :].strip()
            allin = False
            while True:
                if action.endswith(" and is all-in"):
                    action, allin = action[: -len(" and is all-in")], True
                elif capped := _CAP_SUFFIX.search(action):
                    action = action[: capped.start()]
                else:
                    break
            verb, _, rest = action.partition(" ")
            if verb in ("bets", "calls", "raises", "checks", "folds", "brings"):
                drawing = False
            if action.startswith("posts small & big blinds "):
                chips = self._chips(action.rsplit(" ", 1)[1], k)
                live = min(chips, big_blind) if big_blind is not None else chips
                pay(name, chips - live, k, to_bet=False, is_dead=True)
                pay(name, live, k)
            elif action.startswith("posts the ante "):
                pay(name, self._chips(action.rsplit(" ", 1)[1], k), k, to_bet=False)
            elif action.startswith(
                ("posts small blind ", "posts big blind ", "posts straddle ", "posts button blind ")
            ):
                chips = self._chips(action.rsplit(" ", 1)[1], k)
                pay(name, chips, k)
                if action.startswith(("posts big blind ", "posts button blind ")) and not allin:
                    big_blind = chips if stakes.big_blind is None else big_blind
            elif action.startswith(("brings in for ", "brings-in for ", "brings in low for ")):
                pay(name, self._chips(action.rsplit(" ", 1)[1], k), k)
            elif verb == "folds":
                folded.add(name)
                if shown := _CARDS.findall(rest):
                    cards.setdefault(name, self._cards(shown[0], k))
            elif verb == "checks":
                if bet[name] < max(bet.values()):
                    raise self._error(ImpossibleAction, k, f"{name} checks facing a bet")
            elif verb in ("calls", "bets"):
                chips = self._chips(rest, k)
                if verb == "calls" and bet[name] + chips > max(bet.values()):
                    raise self._error(ImpossibleAction, k, f"{name} calls more than the bet")
                pay(name, chips, k)
            elif verb == "raises":
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
                pay(name, raise_to - bet[name], k)
            elif verb == "discards" or action.startswith("stands pat"):
                if not game.draw:
                    raise self._error(ImpossibleAction, k, f"{game.name} has no draw")
                if not drawing:
                    bet = dict.fromkeys(players, 0)  # single draw: no section line before the draw
                    drawing = True
                thrown = _CARDS.findall(rest)
                if verb == "discards" and thrown and name in cards:
                    gone = set(self._cards(thrown[0], k))
                    cards[name] = [c for c in cards[name] if c not in gone]
            elif verb == "shows":
                if shown := _CARDS.findall(rest):
                    cards[name] = self._cards(shown[0], k)
            elif action.startswith("mucks"):
                mucked.add(name)
                if shown := _CARDS.findall(rest):
                    cards[name] = self._cards(shown[0], k)
            elif action.startswith(("doesn't show hand", *_PLAYER_INFO)) or "Table deposit" in action:
                pass
            else:
                raise self._error(HandSyntaxError, k, "not a PokerStars action")
            if allin and left[name] != 0:
                raise self._error(ChipsDoNotAddUp, k, f"{name} is all-in with {left[name]} behind")
            k += 1

        if unverifiable:
            return HandRecord(
                self.source, self.hand_id, self.line, None, None, unverifiable, False, game.name, tuple(bounties),
                tuple(places), self.currency, tuple(purchases),
            )  # fmt: skip
        if total is None or rake is None:
            raise HandSyntaxError(
                self.source, self.hand_id, self.end, "the hand has no 'Total pot ... | Rake' line", game.name
            )
        in_hand = [n for n in players if n not in sitting_out or n in acted]
        if len(in_hand) < 2:
            raise ImpossibleAction(
                self.source,
                self.hand_id,
                self.line,
                f"{len(in_hand)} seat(s) in the hand; the others sit out",
                game.name,
            )
        boards = self._boards(game, board, runs, run_boards, summary_boards)
        heads, cash_ppm = self._knockout(tournament, seat_bounties, bounties, in_hand)
        hand = Read(
            game, tournament, button, [players[n] for n in in_hand], put, dead, folded, mucked, cards, boards,
            community, returned, pots, by_run, summary, total, rake, tuple(bounties), tuple(places), heads, cash_ppm,
        )  # fmt: skip
        for purchase in purchases:
            if purchase.player not in players:
                raise self._error(ImpossibleAction, purchase.line - 1, f"{purchase.player!r} has no seat in this hand")
        read = record(hand, Where(self.source, self.hand_id, self.line, self.total_line, self.table, self.currency))
        if purchases:
            read = read._replace(purchases=tuple(purchases))
        if (amounts := self._buy_in_amounts()) is not None:
            read = read._replace(buy_in_bounty=amounts[1])
        return read

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
        groups = _CARDS.findall(rest)
        total = self._cards(" ".join(groups), k) if groups else []
        size = _BOARD_STREETS[street]
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
