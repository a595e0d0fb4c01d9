"""Read PokerStars text hand histories: cash games (money in cents) and tournaments (chips).

A file holds hands one after another (UTF-8, often with a BOM and CRLF line
ends). Each hand becomes the :class:`~showdown_messages.ShowdownEvent` the
worker settles, with the real seat numbers and button:

* ``contributed`` is every chip a seat put in (blinds, antes, bets, calls)
  less an uncalled bet returned to it; the small-blind part of ``posts small
  & big blinds`` is dead money;
* a fold, and ``mucks hand`` at the showdown, is ``folded``;
* cards come from ``Dealt to``, ``shows`` and the summary's ``showed`` /
  ``mucked`` lines;
* ``Rake X`` is the event's ``rake``. PokerStars rakes a true percentage of
  the pots, main pot first, and does not print its rate; when a hand has
  side pots open to different seats, the reader recovers the roundest rate
  (in parts per million) that gives the recorded pots exactly and sends it
  as ``rake_ppm`` (see :func:`fit_rake_ppm`).

What the history recorded (every ``collected`` line, the summary's amounts,
the uncalled bets returned, the total pot and the rake) goes in a
:class:`~showdown_service.replay.hands.StarsOutcome` for the comparison.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final, NamedTuple

from showdown_core import InvalidEvent, SeatHand, build_pots
from showdown_core.settlement import rake_by_pot
from showdown_messages import SCHEMA_VERSION, canonical_card
from showdown_rules.limits import PPM
from showdown_service.replay.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    UnsupportedHand,
)
from showdown_service.replay.hands import HandRecord, StarsOutcome, validated_event

_START = re.compile(r"^PokerStars (?:Zoom |Home Game |Rush )?(?:Hand|Game) #(\d+):\s*(.*)$")
_TOURNAMENT = re.compile(r"Tournament #(\d+)")
_STAKES = re.compile(r"\(([^()]*?)/([^()]*?)(?:\s+[A-Z]{3})?\)")
_TABLE = re.compile(r"^Table '([^']*)' (?:\d+-max )?(?:\(Play Money\) )?Seat #(\d+) is the button")
_SEAT = re.compile(r"^Seat (\d+): (.+?) \(([^()]*?) in chips(?:[^()]*)\)(.*)$")
_COLLECTED = re.compile(r"^(.+?) collected (\S+) from (pot|main pot|side pot(?:-(\d+))?)\s*$")
_UNCALLED = re.compile(r"^Uncalled bet \((\S+)\) returned to (.+?)\s*$")
_TOTAL = re.compile(r"^Total pot (\S+)(.*?)\| Rake (\S+)")
_SUMMARY_SEAT = re.compile(r"^Seat (\d+): (.+?) (?:\((?:button|small blind|big blind)\) )*(.*)$")
_WON = re.compile(r"(?:won|collected) \((\S+)\)")
_CARDS = re.compile(r"\[([^\]]*)\]")
_STREET = re.compile(r"^\*\*\* (FLOP|TURN|RIVER) \*\*\* (.*)$")
_STREET_CARDS: Final = {"FLOP": (0, 3), "TURN": (3, 1), "RIVER": (4, 1)}
"""Per street: the board cards before it, and the cards it deals."""
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
    " re-buys and receives",
    " takes the add-on",
    " cashed out the hand",
    " has reconnected",
)
"""Lines about the table rather than the hand: ignored."""


def read_pokerstars(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a PokerStars hand history file's ``text``, read, or the error that stopped it."""
    lines = text.lstrip("\ufeff").splitlines()
    starts = [k for k, line in enumerate(lines) if line.startswith("PokerStars ")]
    first = next((k for k, line in enumerate(lines) if line.strip()), 0)
    if not starts or first < starts[0]:
        yield HandSyntaxError(source, None, first + 1, "text before the first 'PokerStars Hand #' line")
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        try:
            yield _Hand(lines, start, end, source).read()
        except ReplayError as exc:
            yield exc


class _Player(NamedTuple):
    seat: int
    name: str
    stack: int


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

    def _error(self, kind: type[ReplayError], k: int, reason: str) -> ReplayError:
        return kind(self.source, self.hand_id, k + 1, f"{reason}: {self.lines[k].strip()!r}")

    def read(self) -> HandRecord:
        lines, k = self.lines, self.start
        head = _START.match(lines[k])
        if head is None:
            raise self._error(HandSyntaxError, k, "not a PokerStars hand header")
        self.hand_id = f"pokerstars:{head.group(1)}"
        title = head.group(2)
        tournament = _TOURNAMENT.search(title)
        if "Hold'em" not in title:
            raise UnsupportedHand(self.source, self.hand_id, k + 1, f"not hold'em: {title.strip()!r}")
        stakes = _STAKES.findall(title)
        money = bool(stakes) and any(c in stakes[-1][0] + stakes[-1][1] for c in _SYMBOLS)
        self.scale = 100 if money else 1
        small = self._chips(stakes[-1][0], k) if stakes else 0

        k += 1
        table = _TABLE.match(lines[k]) if k < self.end else None
        if table is None:
            raise self._error(HandSyntaxError, min(k, self.end - 1), "expected \"Table '...' Seat #N is the button\"")
        button = int(table.group(2))
        self.table = table.group(1) or "pokerstars"
        players: dict[str, _Player] = {}
        sitting_out: set[str] = set()
        k += 1
        while k < self.end and (seat_line := _SEAT.match(lines[k])):
            number, name = int(seat_line.group(1)), seat_line.group(2)
            players[name] = _Player(number, name, self._chips(seat_line.group(3), k))
            if "sitting out" in seat_line.group(4):
                sitting_out.add(name)
            k += 1
        if len(players) < 2:
            raise self._error(HandSyntaxError, min(k, self.end - 1), "a hand needs two seats; seat lines expected")

        put = dict.fromkeys(players, 0)
        dead = dict.fromkeys(players, 0)
        bet = dict.fromkeys(players, 0)
        left = {name: p.stack for name, p in players.items()}
        folded: set[str] = set()
        mucked: set[str] = set()
        acted: set[str] = set()
        cards: dict[str, list[str]] = {}
        board: list[str] = []
        returned: dict[int, int] = {}
        pots: dict[int, dict[int, int]] = {}
        summary: dict[int, int] = {}
        total = rake = None
        runs = 1
        in_summary = False

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
            line = lines[k].strip()
            if not line:
                k += 1
                continue
            if line.startswith("*** "):
                street = _STREET.match(line)
                if street:
                    dealt = _CARDS.findall(street.group(2))
                    new = self._cards(dealt[-1], k) if dealt else []
                    before, count = _STREET_CARDS[street.group(1)]
                    if (len(board), len(new)) != (before, count):
                        raise self._error(
                            ImpossibleAction,
                            k,
                            f"{len(new)} card(s) dealt onto {len(board)} board card(s); "
                            f"the {street.group(1).lower()} is {count} onto {before}",
                        )
                    board = board + new
                    bet = dict.fromkeys(players, 0)
                elif "FIRST" in line or "SECOND" in line or "THIRD" in line:
                    runs = max(runs, 2)
                elif line.startswith("*** SUMMARY"):
                    in_summary = True
                elif not line.startswith(("*** HOLE CARDS", "*** SHOW DOWN", "*** PRE-FLOP", "*** 3rd")):
                    raise self._error(HandSyntaxError, k, "unknown section")
                k += 1
                continue
            if in_summary:
                if m := _TOTAL.match(line):
                    total, rake = self._chips(m.group(1), k), self._chips(m.group(3), k)
                    self.total_line = k + 1
                elif line.startswith("Board "):
                    found = _CARDS.findall(line)
                    if found and not board:
                        board = self._cards(found[0], k)
                elif line.startswith("Hand was run"):
                    runs = max(runs, 2)
                elif m := _SUMMARY_SEAT.match(line):
                    seat, rest = int(m.group(1)), m.group(3)
                    if won := _WON.findall(rest):
                        summary[seat] = sum(self._chips(w, k) for w in won)
                    name = next((n for n, p in players.items() if p.seat == seat), None)
                    shown = _CARDS.findall(rest)
                    if name is not None and shown and name not in cards:
                        cards[name] = self._cards(shown[0], k)
                k += 1
                continue
            if m := _COLLECTED.match(line):
                name = player_of(m.group(1), k)
                index = 0 if m.group(3) in ("pot", "main pot") else int(m.group(4) or 1)
                pot = pots.setdefault(index, {})
                seat = players[name].seat
                pot[seat] = pot.get(seat, 0) + self._chips(m.group(2), k)
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
                name = next((n for n in players if rest.startswith(n + " [")), None)
                if name is None:
                    raise self._error(ImpossibleAction, k, "cards dealt to a player with no seat")
                dealt = _CARDS.findall(rest[len(name) :])
                if not dealt:
                    raise self._error(HandSyntaxError, k, "expected 'Dealt to NAME [CARDS]'")
                cards[name] = self._cards(dealt[0], k)
                k += 1
                continue
            name = next((n for n in players if line.startswith(n + ": ")), None)
            if name is None:
                if any(marker in line for marker in _INFO) or line.startswith(("Board ", "Hand was run")):
                    k += 1
                    continue
                raise self._error(HandSyntaxError, k, "not a line of a PokerStars hand")
            action = line[len(name) + 2 :].strip()
            allin = action.endswith(" and is all-in")
            if allin:
                action = action[: -len(" and is all-in")]
            verb, _, rest = action.partition(" ")
            if action.startswith("posts small & big blinds "):
                chips = self._chips(action.rsplit(" ", 1)[1], k)
                pay(name, min(small, chips), k, to_bet=False, is_dead=True)
                pay(name, chips - min(small, chips), k)
            elif action.startswith("posts the ante "):
                pay(name, self._chips(action.rsplit(" ", 1)[1], k), k, to_bet=False)
            elif action.startswith(("posts small blind ", "posts big blind ", "posts straddle ")):
                pay(name, self._chips(action.rsplit(" ", 1)[1], k), k)
            elif verb == "folds":
                folded.add(name)
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
                if raise_to - before != raise_by:
                    raise self._error(
                        ChipsDoNotAddUp, k, f"a raise to {raise_to} over a bet of {before} is {raise_to - before}"
                    )
                pay(name, raise_to - bet[name], k)
            elif verb == "shows":
                shown = _CARDS.findall(rest)
                if shown:
                    cards[name] = self._cards(shown[0], k)
            elif action.startswith("mucks"):
                mucked.add(name)
            elif action.startswith(("doesn't show hand", "is sitting out", "sits out", "has timed out")):
                pass
            elif verb in {"discards", "stands"}:
                raise UnsupportedHand(self.source, self.hand_id, k + 1, "a draw game")
            else:
                raise self._error(HandSyntaxError, k, "not a PokerStars action")
            if allin and left[name] != 0:
                raise self._error(ChipsDoNotAddUp, k, f"{name} is all-in with {left[name]} behind")
            k += 1

        if total is None or rake is None:
            raise HandSyntaxError(self.source, self.hand_id, self.end, "the hand has no 'Total pot ... | Rake' line")
        in_hand = [n for n in players if n not in sitting_out or n in acted]
        if len(in_hand) < 2:
            raise ImpossibleAction(
                self.source, self.hand_id, self.line, f"{len(in_hand)} seat(s) in the hand; the others sit out"
            )
        return self._record(
            title,
            tournament.group(1) if tournament else None,
            button,
            [players[n] for n in in_hand],
            put,
            dead,
            folded,
            mucked,
            cards,
            board,
            returned,
            pots,
            summary,
            total,
            rake,
            runs,
        )

    def _chips(self, text: str, k: int) -> int:
        """``$1,234.56`` -> 123456 (cents) in a cash game; ``1500`` -> 1500 in a tournament."""
        raw = text.strip().rstrip(".,")
        clean = raw.lstrip(_SYMBOLS).replace(",", "")
        whole, dot, cents = clean.partition(".")
        if not whole.isdigit() or (dot and not (cents.isdigit() and len(cents) <= 2)) or (dot and self.scale == 1):
            raise self._error(HandSyntaxError, k, f"{raw!r} is not an amount")
        return int(whole) * self.scale + (int(cents.ljust(2, "0")) if dot else 0)

    def _cards(self, text: str, k: int) -> list[str]:
        out = []
        for token in text.split():
            card = canonical_card(token)
            if card is None:
                raise self._error(HandSyntaxError, k, f"{token!r} is not a card")
            out.append(card)
        return out

    def _record(  # noqa: PLR0917  # the hand's parts, read once, kept positional for speed
        self,
        title: str,
        tournament: str | None,
        button: int,
        seated: list[_Player],
        put: dict[str, int],
        dead: dict[str, int],
        folded: set[str],
        mucked: set[str],
        cards: dict[str, list[str]],
        board: list[str],
        returned: dict[int, int],
        pots: dict[int, dict[int, int]],
        summary: dict[int, int],
        total: int,
        rake: int,
        runs: int,
    ) -> HandRecord:
        end = self.total_line
        out = [p for p in seated if p.name not in folded]
        contested = len(out) > 1
        in_pots = sum(put.values()) + sum(dead.values())
        if in_pots != total:
            raise ChipsDoNotAddUp(
                self.source, self.hand_id, end, f"the pots hold {in_pots} by the actions but 'Total pot' says {total}"
            )
        paid = sum(sum(pot.values()) for pot in pots.values())
        if paid + rake != total:
            raise ChipsDoNotAddUp(
                self.source, self.hand_id, end, f"{paid} collected plus {rake} rake is not the total pot of {total}"
            )
        recorded = [pots.get(i, {}) for i in range(max(pots, default=-1) + 1)]
        by_seat: dict[int, int] = {}
        for pot in recorded:
            for seat, chips in pot.items():
                by_seat[seat] = by_seat.get(seat, 0) + chips
        if summary and any(by_seat.get(seat, 0) != chips for seat, chips in summary.items()):
            raise ChipsDoNotAddUp(
                self.source, self.hand_id, end, f"the summary's amounts {summary} are not the collected lines {by_seat}"
            )
        gross = {p.seat: put[p.name] + returned.get(p.seat, 0) for p in seated}
        levels = sorted(gross.values(), reverse=True)
        top_seat = max(gross, key=lambda s: gross[s])
        uncalled = {top_seat: levels[0] - levels[1]} if levels[0] > levels[1] else {}

        unverifiable = ""
        if runs > 1:
            unverifiable = "run-it-twice: the board was run more than once"
        elif contested and len(board) != 5:
            raise ImpossibleAction(
                self.source, self.hand_id, end, f"{len(out)} players reach the showdown with {len(board)} board cards"
            )
        else:
            showing = [p for p in out if p.name not in mucked]
            unknown = [p.seat for p in showing if len(cards.get(p.name, ())) != 2]
            if len(showing) > 1 and unknown:
                unverifiable = f"unknown cards at a contested showdown (seat {', '.join(map(str, unknown))})"

        event = None
        groups: tuple[int, ...] = ()
        note = ""
        if not unverifiable:
            players = [
                {
                    "seat": p.seat,
                    "player_id": p.name,
                    "hole_cards": cards.get(p.name),
                    "contributed": put[p.name],
                    "dead_money": dead[p.name],
                    "folded": p.name in folded or p.name in mucked,
                    "stack": p.stack,
                }
                for p in seated
            ]
            doc = {
                "schema_version": SCHEMA_VERSION,
                "hand_id": self.hand_id,
                "table_id": self.table,
                "tournament_id": tournament,
                "variant": "holdem",
                "board": board,
                "button_seat": button,
                "players": players,
                "rake": rake,
            }
            event = validated_event(doc, self.source, self.hand_id, self.line)
            seats = [SeatHand(p.seat, p.name, (), put[p.name], dead[p.name], p.name in folded) for p in seated]
            groups = _pot_groups(seats, mucked={p.seat for p in seated if p.name in mucked})
            if rake and len(set(groups)) > 1:
                ours, _ = build_pots([s._replace(folded=s.folded or s.player_id in mucked) for s in seats])
                net = [0] * len(ours)
                for index, pot in enumerate(recorded):
                    if index < len(groups):
                        net[groups[index]] += sum(pot.values())
                wanted = tuple(pot.amount - chips for pot, chips in zip(ours, net, strict=True))
                ppm = fit_rake_ppm([pot.amount for pot in ours], rake, wanted)
                if ppm is not None:
                    event = validated_event({**doc, "rake_ppm": ppm}, self.source, self.hand_id, self.line)
                    note = f"rake rate {ppm / PPM:.4%} recovered from the recorded pots"
        outcome = StarsOutcome(tuple(recorded), summary, returned, uncalled, rake, total, groups, note)
        return HandRecord(self.source, self.hand_id, self.line, event, outcome, unverifiable, contested)


def _pot_groups(seats: list[SeatHand], mucked: set[int]) -> tuple[int, ...]:
    """For each pot PokerStars built (mucked seats still in), the index of the service's pot that holds it."""
    theirs, _ = build_pots(seats)
    groups: list[int] = []
    previous: tuple[int, ...] | None = None
    for pot in theirs:
        live = tuple(seat for seat in pot.eligible if seat not in mucked)
        if live != previous:
            groups.append(len(groups) and groups[-1] + 1)
            previous = live
        else:
            groups.append(groups[-1])
    return tuple(groups)


_STEPS: Final = (10_000, 5_000, 2_500, 1_000, 500, 250, 100, 50, 25, 10, 5, 1)
"""Rate granularities tried, coarsest first, in parts per million (1% down to 0.0001%)."""


def fit_rake_ppm(amounts: list[int], rake: int, wanted: tuple[int, ...]) -> int | None:
    """The roundest rate (ppm) with which ``rake_by_pot`` rakes ``wanted`` from pots of ``amounts``.

    ``None`` when the default (rake in proportion to the pots) already gives
    ``wanted``, or no rate does. Each pot but the last bounds the rate: the
    first k pots together gave round-half-even(rate x their chips).
    """
    if rake_by_pot(amounts, rake) == wanted:
        return None
    low, high = 0.0, 1.0
    chips = taken = 0
    for amount, chips_taken in zip(amounts[:-1], wanted[:-1], strict=True):
        chips += amount
        taken += chips_taken
        if chips:
            low, high = max(low, (taken - 0.5) / chips), min(high, (taken + 0.5) / chips)
    low = max(low, (rake - 0.5) / sum(amounts))
    for step in _STEPS:
        first = int(low * PPM) // step * step
        for ppm in range(first, min(int(high * PPM) + step, PPM) + 1, step):
            if ppm >= 0 and _gives(amounts, rake, ppm, wanted):
                return ppm
    return None


def _gives(amounts: list[int], rake: int, ppm: int, wanted: tuple[int, ...]) -> bool:
    try:
        return rake_by_pot(amounts, rake, ppm) == wanted
    except InvalidEvent:
        return False
