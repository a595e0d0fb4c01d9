"""The room's rake, as the room posts it: a schedule, what it takes from a hand's pots, and who paid it.

Pure: no I/O, no pydantic. :mod:`showdown_service.decision.rake_schedules` reads the
schedule files; the worker and ``showdown rake`` call :func:`rake_hand`.

Every rule below is the room's own words (docs/rake.md has the sources) and
has a test named for it in tests/decision/test_rake_schedules.py:

* **True percentage, capped by stakes and players dealt in** (PokerStars,
  "Poker Rake" page): "caps ... based on the number of players dealt into
  that particular hand, not the number seated"; USD NL $0.05/$0.10: 4.50%,
  caps $0.50 / $1.00 / $1.50 for 2 / 3-4 / 5+ players; $0.02/$0.05:
  4.15%, $0.50 / $0.50 / $1.00. 888poker: a true percentage, caps by 2 / 3+.
* **Rounding** ("a true percentage using the 'round half to even' method of
  rounding", PokerStars); ``down`` and ``up`` where a schedule says so.
* **Incremental** (partypoker, WPN, Bodog, FDJ: "$0.01 for each $0.20 in the
  pot"): ``take`` chips for each whole ``per`` chips in the pot (rounding
  ``up``: for each one begun).
* **A second stage** (PokerStars Germany): the rake rounded half to even,
  times 1.25, rounded again: a $0.90 pot at 3.5% is $0.0315 -> $0.03, then
  $0.0375 -> $0.04.
* **Fixed drop** (live rooms): ``drop`` chips a hand, never more than the pot.
* **Time collection** (live rooms) and **tournaments** ("a fee in the buy-in"):
  nothing per hand.
* **No flop, no drop** (PokerStars: "We do not charge rake if the hand ends on
  the first betting round (before the flop in Hold'em or Omaha, before Fourth
  Street in Stud variants, or before the Draw in Draw variants)").
* **Flop or preflop 3-bet** (some GGNetwork skins): a hand ending pre-flop is
  raked only when a third bet was made pre-flop.
* **Uncalled bets are never raked** (GGPoker: "wagers placed but not called
  ... are not subject to rake"): the pots given here hold no uncalled bet.
* **Run it twice, raked once** (PokerStars: no extra rake for running it
  twice): the rake is the pot's, whatever the number of boards; the pot
  left after it is divided among the runs by the settlement.
* **A cap spans the hand's pots**: split across them in proportion to their
  chips (``proportional``), or taken main pot first (``main_pot_first``:
  the pots raked in order at the schedule's rate until the cap, as the
  PokerStars sample side_pot_ante_rake.txt shows: 1.43 + 0.07).
* **Attribution** (PokerStars since 2012 and partypoker since 2011 count who
  "paid" the rake for rakeback and loyalty): ``dealt`` (equal among the
  seats dealt in), ``contributed`` (equal among the seats with chips in the
  pots) or ``weighted_contributed`` (in proportion to those chips); the
  shares sum to the rake exactly (largest remainders, ties to the lower seat).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Final, Literal, NamedTuple

PPM: Final = 1_000_000
"""Rates are whole parts per million (4.5% = 45_000)."""

Mode = Literal["percentage", "incremental", "fixed_drop", "time_collection", "tournament"]
Rounding = Literal["half_even", "down", "up"]
CapSplit = Literal["proportional", "main_pot_first"]
Attribution = Literal["dealt", "contributed", "weighted_contributed"]
MODES: Final[tuple[Mode, ...]] = ("percentage", "incremental", "fixed_drop", "time_collection", "tournament")
ROUNDINGS: Final[tuple[Rounding, ...]] = ("half_even", "down", "up")
CAP_SPLITS: Final[tuple[CapSplit, ...]] = ("proportional", "main_pot_first")
ATTRIBUTIONS: Final[tuple[Attribution, ...]] = ("dealt", "contributed", "weighted_contributed")


class RakeError(ValueError):
    """A hand the schedule cannot rake: no tier for its stakes, no version for its date, a tournament hand."""


@dataclass(frozen=True, slots=True)
class Cap:
    """The most a hand gives when ``players_from`` to ``players_to`` (``None``: and more) players were dealt in."""

    players_from: int
    players_to: int | None
    amount: int


@dataclass(frozen=True, slots=True)
class Tier:
    """The rake at one stakes: a big blind (``None``: every stakes), its rate and its caps (none: uncapped)."""

    big_blind: int | None
    small_blind: int | None = None
    rate_ppm: int = 0
    """``percentage``: the rate."""
    per: int = 0
    """``incremental``: ``take`` chips for each ``per`` chips in the pot."""
    take: int = 0
    drop: int = 0
    """``fixed_drop``: the chips taken a hand."""
    caps: tuple[Cap, ...] = ()

    def cap_for(self, dealt_in: int) -> int | None:
        """The cap for ``dealt_in`` players; ``None`` when uncapped."""
        for cap in self.caps:
            if cap.players_from <= dealt_in and (cap.players_to is None or dealt_in <= cap.players_to):
                return cap.amount
        return None if not self.caps else self.caps[0].amount  # fewer players than the table's first row


@dataclass(frozen=True, slots=True)
class Version:
    """A schedule as in effect from ``effective_from`` up to (not including) ``effective_to``."""

    effective_from: date
    effective_to: date | None
    mode: Mode
    tiers: tuple[Tier, ...] = ()
    rounding: Rounding = "half_even"
    multiplier_ppm: int | None = None
    """A second stage: the rake, rounded, times this (PokerStars Germany: 1_250_000), rounded again."""
    no_flop_no_drop: bool = True
    flop_or_preflop_3bet: bool = False
    cap_split: CapSplit = "proportional"
    attribution: Attribution = "weighted_contributed"

    def covers(self, day: date) -> bool:
        return self.effective_from <= day and (self.effective_to is None or day < self.effective_to)

    def tier(self, big_blind: int | None) -> Tier:
        """The tier of these stakes: the one naming ``big_blind``, else one for every stakes."""
        default = None
        for tier in self.tiers:
            if tier.big_blind is None:
                default = tier
            elif tier.big_blind == big_blind:
                return tier
        if default is not None:
            return default
        posted = ", ".join(str(t.big_blind) for t in self.tiers)
        given = "no stakes given" if big_blind is None else f"big blind {big_blind}"
        raise RakeError(f"it posts no rake for {given} (its stakes: big blinds {posted})")


@dataclass(frozen=True, slots=True)
class Schedule:
    """One room's (or market's) posted rake for one currency and games, in versions by date."""

    id: str
    room: str
    currency: str
    games: tuple[str, ...]
    """The variants it rakes (``holdem``, ``omaha``, ...)."""
    versions: tuple[Version, ...]
    """Oldest first; their dates never overlap."""
    market: str = ""
    limits: tuple[str, ...] = ()
    """The betting structures it covers (``no_limit``, ``pot_limit``, ...): documentation only."""

    def version_at(self, day: date | None) -> Version:
        """The version in effect on ``day``; without a day, the one in effect with no end (the current one)."""
        for version in self.versions:
            if (version.effective_to is None) if day is None else version.covers(day):
                return version
        when = "with no end date" if day is None else f"on {day.isoformat()}"
        spans = ", ".join(f"{v.effective_from}..{v.effective_to or ''}" for v in self.versions)
        raise RakeError(f"no version of it is in effect {when} (its versions: {spans})")


class Hand(NamedTuple):
    """What a schedule reads of a hand (a NamedTuple, as the per-hand records of :mod:`showdown_core.model`:
    one is built per hand, on the hot path).

    ``first_round`` and ``preflop_3bet`` are ``None`` when the event does not
    say (an uncontested draw hand, a pre-flop hand without its betting).
    """

    pots: tuple[int, ...]
    """Each pot's chips, main pot first, uncalled bets already returned."""
    dealt_in: int
    big_blind: int | None = None
    first_round: bool | None = False
    """The hand ended in the first betting round (no flop, no fourth street, no draw)."""
    preflop_3bet: bool | None = False
    tournament: bool = False


class Raked(NamedTuple):
    """What a schedule takes from a hand."""

    rake: int
    by_pot: tuple[int, ...]
    """Each pot's part of ``rake``, main pot first."""
    cap: int | None
    uncapped: int
    """What the rate gives before the cap."""
    alternative: int | None = None
    """When the hand's first round is unknown (:attr:`Hand.first_round` ``None``) and the schedule does not
    rake the first round: the rake had the hand gone past it (``rake`` is then 0: never more than the schedule
    proves)."""


def round_div(numerator: int, denominator: int, rounding: Rounding) -> int:
    """``numerator / denominator`` (both >= 0, denominator > 0) rounded as ``rounding`` says."""
    quotient, remainder = divmod(numerator, denominator)
    if not remainder or rounding == "down":
        return quotient
    if rounding == "up":
        return quotient + 1
    if 2 * remainder > denominator or (2 * remainder == denominator and quotient % 2):
        return quotient + 1
    return quotient


def uncapped(version: Version, tier: Tier) -> Callable[[int], int]:
    """The rake of a pot of ``chips`` before any cap: a function never decreasing, never above ``chips``."""
    rounding = version.rounding
    if version.mode == "percentage":
        rate, stage = tier.rate_ppm, version.multiplier_ppm
        if stage is None:
            return lambda chips: round_div(rate * chips, PPM, rounding)
        return lambda chips: min(chips, round_div(round_div(rate * chips, PPM, rounding) * stage, PPM, rounding))
    if version.mode == "incremental":
        per, take = tier.per, tier.take
        return lambda chips: min(chips, round_div(chips * take, per, rounding))
    if version.mode == "fixed_drop":
        drop = tier.drop
        return lambda chips: min(chips, drop)
    return lambda chips: 0  # time collection, tournaments: nothing per hand


def rake_hand(version: Version, hand: Hand) -> Raked:
    """What ``version`` takes from ``hand``'s pots, and each pot's part of it.

    Raises :class:`RakeError` for a tournament hand under a schedule that
    rakes per hand, or stakes the schedule does not post.
    """
    if version.mode in _NOTHING_PER_HAND:
        return Raked(0, (0,) * len(hand.pots), None, 0)
    if hand.tournament:
        raise RakeError(f"a tournament hand is never raked per hand (the schedule's mode is {version.mode})")
    tier = version.tier(hand.big_blind)
    return take(version, tier, uncapped(version, tier), hand)


_NOTHING_PER_HAND: Final = frozenset({"time_collection", "tournament"})


def take(version: Version, tier: Tier, rate: Callable[[int], int], hand: Hand) -> Raked:
    """:func:`rake_hand` once the stakes row (``tier``) and its ``rate`` (:func:`uncapped`) are found: a caller
    raking many hands keeps the two (the worker does, per schedule, day and stakes)."""
    pots = hand.pots
    cap = tier.cap_for(hand.dealt_in)
    full = rate(pots[0] if len(pots) == 1 else sum(pots))
    rake = full if cap is None or full <= cap else cap
    skipped = _not_raked(version, hand)
    if skipped is None:  # unknown: never more than the schedule proves
        return Raked(0, (0,) * len(pots), cap, full, rake)
    if skipped:
        return Raked(0, (0,) * len(pots), cap, full)
    return Raked(rake, (rake,) if len(pots) == 1 else split(pots, rake, version.cap_split, rate), cap, full)


def _not_raked(version: Version, hand: Hand) -> bool | None:
    """The hand escapes the rake by the first-round rules: True, False, or None when the event does not say."""
    if not version.no_flop_no_drop or hand.first_round is False:
        return False
    if hand.first_round is None:
        return None
    if not version.flop_or_preflop_3bet:
        return True
    return None if hand.preflop_3bet is None else not hand.preflop_3bet


def split(pots: Sequence[int], rake: int, how: CapSplit, rate: Callable[[int], int]) -> tuple[int, ...]:
    """``rake`` over ``pots`` (main pot first), summing to it exactly, each pot giving at most its chips.

    ``main_pot_first``: the first k pots together give ``rate`` of their chips,
    never more than ``rake`` in all (a cap falls short on the last pots).
    ``proportional``: the first k pots give ``rake`` x their share of the
    chips, rounded half to even (a cap falls on every pot alike).
    """
    total = sum(pots)
    out: list[int] = []
    taken = chips = 0
    for amount in pots:
        chips += amount
        upto = min(rake, rate(chips)) if how == "main_pot_first" else round_div(rake * chips, total or 1, "half_even")
        upto = max(taken, min(upto, taken + amount))  # a pot gives between nothing and its own chips
        out.append(upto - taken)
        taken = upto
    for k, amount in enumerate(pots):  # what a two-stage rate's jumps left over: main pot first, where room is
        more = min(rake - taken, amount - out[k])
        out[k] += more
        taken += more
    return tuple(out)


def attribute(rake: int, seats: Sequence[tuple[int, int]], method: Attribution) -> tuple[tuple[int, int], ...]:
    """What each seat "paid" of ``rake``: ``(seat, chips)`` per seat, seats ascending, summing to ``rake``.

    ``seats``: every seat dealt in with the chips it left in the pots
    (uncalled bets returned). ``dealt``: equal shares among them all;
    ``contributed``: equal among those with chips in; ``weighted_contributed``:
    in proportion to those chips. Odd chips go by largest remainder, ties to
    the lower seat.
    """
    ordered = sorted(seats)
    if not rake:
        return tuple([(seat, 0) for seat, _ in ordered])
    if method == "weighted_contributed":
        weights = [chips for _, chips in ordered]
    elif method == "contributed":
        weights = [1 if chips > 0 else 0 for _, chips in ordered]
    else:
        weights = [1] * len(ordered)
    whole = sum(weights)
    if not whole:  # nobody put a chip in (a rake from nothing cannot be): shared as dealt
        weights, whole = [1] * len(ordered), len(ordered)
    if not whole:
        return ()
    parts = [rake * weight for weight in weights]
    shares = [part // whole for part in parts]
    left = rake - sum(shares)
    if left:  # largest remainders first; a stable sort keeps ties in seat order (the lower seat first)
        remainders = [part % whole for part in parts]
        for i in sorted(range(len(weights)), key=remainders.__getitem__, reverse=True)[:left]:
            shares[i] += 1
    return tuple([(seat, shares[i]) for i, (seat, _) in enumerate(ordered)])


Family = Literal["board", "stud", "draw"]
"""How a game's first betting round ends: the flop (hold'em, Omaha), fourth street (stud games), the draw."""


def ended_in_first_round(family: Family, contested: bool, board_cards: int, most_cards: int) -> bool | None:
    """Whether a hand ended in its first betting round (PokerStars: "before the flop in Hold'em or Omaha, before
    Fourth Street in Stud variants, or before the Draw in Draw variants"), from what a finished hand shows.

    A contested showdown is past the first round in every game (a board game's board is complete then; a stud
    hand holds seven cards; a draw game's showdown follows the last draw). Uncontested: a board game ended
    before the flop when no board card was dealt; a stud hand before fourth street when no seat holds more than
    three cards (``None`` when no cards are given); a draw hand cannot tell (``None``).
    """
    if contested:
        return False
    if family == "board":
        return board_cards == 0
    if family == "stud":
        return None if most_cards == 0 else most_cards <= 3
    return None
