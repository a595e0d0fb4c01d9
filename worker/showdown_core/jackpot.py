"""Bad-beat jackpots as ledgers: the drop each pot pays in, the hand that qualifies, the shares paid out.

A jackpot program is a room's published rule (issue 39; GGPoker's Bad Beat Jackpot is the anchor, measured on
its real histories in ``../shared/data/rooms-more/GGPoker``). A jackpot's fund is a ledger: drops go in, payouts
come out, nothing else moves it. Each rule with its test (tests/core/test_jackpot.py):

* **The drop** (GGPoker: "1 big blind from every pot of 30 big blinds or more"): ``drop_big_blinds`` big blinds
  from a pot whose total (rake included, as the history's ``Total pot``) is at least ``minimum_pot_big_blinds``
  big blinds; nothing from a smaller pot. Every GGPoker cash sample's ``Jackpot`` figure is this drop. The drop
  is taken after the rake (N.J.A.C. 13:69F-14.19(c)): never more than the pot less its rake. A stated drop other
  than the rule's is refused (``jackpot_drop_mismatch``), naming both figures; a drop from a pot under the
  minimum, ``jackpot_pot_under_minimum``.
* **The qualifier** (GGPoker: "AAATT or better loses", PLO 2222; "both hole cards play", a pocket pair for quads;
  first run-out only): the best hand that does not win the pot every live seat contests is the losing hand; it
  qualifies when it is at least ``minimum`` and, with ``both_hole_cards``, some five cards with both hole cards
  make a hand as good (Omaha plays two hole cards always). Only the first board of a hand run more than once.
  Hands are valued in the program's games' high ranking (``ranking``: short deck's flush beats its full house); a
  qualifier those games cannot make is refused ``jackpot_qualifier_impossible``
  (:mod:`showdown_core.jackpot_qualifier`).
* **The shares** (GGPoker: 10% to the losing hand, 3% to the winner, 0.8% to each other seat dealt in): parts
  per million of the fund's balance before the payout, each rounded down to the minor unit; seats sharing a role
  (a split pot's winners, tied losing hands) split the role's amount equally, rounded down. What rounding leaves
  stays in the fund (the remainder): the fund never goes negative, and the program is refused when its shares
  could pay more than the whole fund at a full table (``bad_jackpot_program``).
* **Money in == money out.** After any run of hands: the balance is the seed plus every drop less every payout
  (:func:`fold`).
* **The fund is a ledger** (:class:`Fund`, :func:`take`): the first hand naming a jackpot id declares it (its program
  and, optionally, its seed: money the room puts in, not from a pot); every later hand names the same program, and a
  seed it states is the declared one (``jackpot_program_changed`` otherwise: a jackpot declared twice with other
  rules). Each settled hand adds its drop, then a qualifying bad beat pays its shares from the balance that leaves;
  the fund never goes negative and always holds ``seed + dropped - paid``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Final

from showdown_core.cards import Card
from showdown_core.errors import InvalidEvent, InvariantViolation
from showdown_core.evaluator import Category
from showdown_core.jackpot_qualifier import HighValue, hand_named
from showdown_core.ranking import STRENGTH
from showdown_core.variants import ranking
from showdown_rules.limits import MAX_PLAYERS, PPM

ROLES: Final = ("loser", "winner", "other")
"""Who a bad beat pays: the losing hand, the winning hand, each other seat dealt in."""


@dataclass(frozen=True, slots=True)
class JackpotProgram:
    """A jackpot's published rule: its drop, its qualifier and its shares."""

    program_id: str
    drop_big_blinds: int
    """Big blinds dropped from a pot that qualifies for the drop (GGPoker: 1)."""
    minimum_pot_big_blinds: int
    """The least total pot, in big blinds, that pays the drop (GGPoker: 30)."""
    minimum: HighValue
    """The weakest losing hand that qualifies (GGPoker hold'em: AAATT), a value of :attr:`ranking`."""
    loser_ppm: int
    winner_ppm: int
    other_ppm: int
    """Each other seat's share (GGPoker: 0.8% = 8,000)."""
    both_hole_cards: bool = True
    """The qualifying hand must play both hole cards (a pocket pair for quads)."""
    omaha: bool = False
    """Hands are Omaha's: exactly two hole cards and three of the board (both hole cards always play)."""
    ranking: str = "high"
    """The high ranking hands are valued in (its games': :func:`showdown_core.jackpot_qualifier.qualifier`)."""

    def __post_init__(self) -> None:
        where = f"jackpot program {self.program_id!r}"
        if self.drop_big_blinds < 0 or self.minimum_pot_big_blinds < 0:
            raise InvalidEvent.of("bad_jackpot_program", "drop", f"{where}: a negative drop or minimum pot")
        most = self.loser_ppm + self.winner_ppm + self.other_ppm * (MAX_PLAYERS - 2)
        if min(self.loser_ppm, self.winner_ppm, self.other_ppm) < 0 or most > PPM:
            raise InvalidEvent.of(
                "bad_jackpot_program",
                "shares",
                f"{where}: its shares pay {most} ppm of the fund at a table of {MAX_PLAYERS}: more than the fund",
            )


def expected_drop(program: JackpotProgram, pot: int, rake: int, big_blind: int) -> int:
    """What ``program`` drops from a pot of ``pot`` chips (rake included) at a big blind of ``big_blind``: its
    drop when the pot reaches the minimum, never more than the pot less its rake."""
    if big_blind <= 0 or pot < program.minimum_pot_big_blinds * big_blind:
        return 0
    return max(0, min(program.drop_big_blinds * big_blind, pot - rake))


def check_drop(program: JackpotProgram, stated: int, pot: int, rake: int, big_blind: int) -> int:
    """``stated`` if it is the drop ``program`` takes, else :class:`InvalidEvent`: ``jackpot_pot_under_minimum`` for
    a drop from a pot under the program's minimum (it drops nothing there), ``jackpot_drop_mismatch`` otherwise."""
    expected = expected_drop(program, pot, rake, big_blind)
    if stated != expected:
        minimum = program.minimum_pot_big_blinds * big_blind
        if stated > 0 and pot < minimum:
            raise InvalidEvent.of(
                "jackpot_pot_under_minimum",
                "jackpot.drop",
                f"program {program.program_id!r} drops nothing from a pot of {pot}, under its minimum of {minimum} "
                f"({program.minimum_pot_big_blinds} big blinds of {big_blind}); stated {stated}",
            )
        raise InvalidEvent.of(
            "jackpot_drop_mismatch",
            "jackpot.drop",
            f"program {program.program_id!r} drops {expected} from a pot of {pot} (rake {rake}; "
            f"{program.drop_big_blinds} big blind of {big_blind} from pots of {minimum} or more), stated {stated}",
        )
    return expected


def best_value(hole: Sequence[Card], board: Sequence[Card], *, omaha: bool, rank: str = "high") -> HighValue:
    """The hand's best value in the high ranking ``rank``: hold'em any five of seven, Omaha two hole cards and three
    of the board."""
    best = ranking(rank).best
    if not omaha:
        return best([*hole, *board])  # type: ignore[return-value]  # a high ranking's value
    fives = (best([*two, *three]) for two in combinations(hole, 2) for three in combinations(board, 3))
    return max(fives, key=STRENGTH)  # type: ignore[return-value]  # as above


def plays_both(hole: Sequence[Card], board: Sequence[Card], value: HighValue, rank: str = "high") -> bool:
    """Some five cards holding both of ``hole`` and three of ``board`` make ``value``; four of a kind needs a pocket
    pair of its rank (GGPoker: "a pocket pair for quads"), not one of the four and the kicker."""
    if value.category is Category.FOUR_OF_A_KIND:
        return all(card.rank == value.ranks[0] for card in hole)
    best = ranking(rank).best
    return any(best([*hole, *three]) is value for three in combinations(board, 3))


@dataclass(frozen=True, slots=True)
class BadBeat:
    """A qualifying bad beat: the losing hand's seats, the winners', and its value."""

    losers: tuple[int, ...]
    winners: tuple[int, ...]
    losing_hand: HighValue
    winning_hand: HighValue


def bad_beat(
    program: JackpotProgram, board: Sequence[Card], live: Sequence[tuple[int, Sequence[Card]]]
) -> BadBeat | None:
    """The bad beat ``live`` (each seat at the showdown with its hole cards) makes on ``board`` (the first run-out),
    or ``None`` when the best losing hand does not qualify (or everyone ties)."""
    if len(live) < 2 or len(board) != 5:
        return None
    values = {seat: best_value(hole, board, omaha=program.omaha, rank=program.ranking) for seat, hole in live}
    top = max(values.values(), key=STRENGTH)
    winners = tuple(sorted(s for s, v in values.items() if v is top))
    beaten = [v for v in values.values() if v is not top]
    if not beaten:
        return None
    losing = max(beaten, key=STRENGTH)
    if losing.strength < program.minimum.strength:
        return None
    losers = tuple(sorted(s for s, v in values.items() if v is losing))
    cards = dict(live)
    if program.both_hole_cards and not program.omaha:
        losers = tuple(s for s in losers if plays_both(cards[s], board, losing, program.ranking))
        if not losers:
            return None
    return BadBeat(losers, winners, losing, top)


@dataclass(frozen=True, slots=True)
class JackpotShare:
    """One seat's share of a payout."""

    seat: int
    role: str
    """``loser``, ``winner`` or ``other`` (:data:`ROLES`)."""
    amount: int


@dataclass(frozen=True, slots=True)
class Payout:
    """A bad beat paid from the fund: the shares, and the fund before and after (the remainder stays in it)."""

    before: int
    shares: tuple[JackpotShare, ...]
    after: int

    @property
    def paid(self) -> int:
        return sum(share.amount for share in self.shares)


def payout(program: JackpotProgram, balance: int, beat: BadBeat, dealt: Iterable[int]) -> Payout:
    """What ``beat`` pays from a fund of ``balance``: each role's parts per million of ``balance``, rounded down,
    split equally (rounded down) among the role's seats; ``dealt`` are every seat dealt in (folded or not)."""
    if balance < 0:
        raise InvariantViolation(f"jackpot fund of {balance}: a fund is never negative")
    others = tuple(sorted(set(dealt) - set(beat.losers) - set(beat.winners)))
    shares: list[JackpotShare] = []
    for role, seats, ppm in (
        ("loser", beat.losers, program.loser_ppm),
        ("winner", beat.winners, program.winner_ppm),
    ):
        each = balance * ppm // PPM // len(seats)
        shares.extend(JackpotShare(seat, role, each) for seat in seats)
    each_other = balance * program.other_ppm // PPM
    shares.extend(JackpotShare(seat, "other", each_other) for seat in others)
    paid = sum(share.amount for share in shares)
    if paid > balance:
        raise InvariantViolation(f"jackpot payout of {paid} from a fund of {balance}; refusing to pay")
    return Payout(balance, tuple(sorted(shares, key=lambda s: s.seat)), balance - paid)


@dataclass(frozen=True, slots=True)
class JackpotOutcome:
    """What a hand did to a jackpot: the drop it paid in and, when it is the program's bad beat, who shares it."""

    jackpot_id: str
    program_id: str
    drop: int
    beat: BadBeat | None
    roles: tuple[tuple[int, str, int], ...]
    """``(seat, role, the role's parts per million of the fund)``, seats ascending; empty without a bad beat."""
    program: JackpotProgram | None = None
    """The program itself (its shares), for :func:`take`."""
    seed: int | None = None
    """The seed the event states for the fund (taken when this hand declares it)."""
    fund_before: int | None = None
    """The fund's balance before this hand (set once the fund is known: :func:`take`)."""
    fund_after: int | None = None
    """The fund's balance after this hand's drop and payout."""
    amounts: tuple[int, ...] = ()
    """With a bad beat and the fund known: each role's amount paid, in the order of :attr:`roles`."""


def outcome(
    program: JackpotProgram, jackpot_id: str, drop: int, beat: BadBeat | None, dealt: Iterable[int]
) -> JackpotOutcome:
    """The hand's jackpot outcome: each seat's role in ``beat`` (``dealt``: every seat dealt in) with its ppm."""
    if beat is None:
        return JackpotOutcome(jackpot_id, program.program_id, drop, None, (), program)
    ppm = {"loser": program.loser_ppm, "winner": program.winner_ppm, "other": program.other_ppm}
    roles = [(seat, "loser") for seat in beat.losers] + [(seat, "winner") for seat in beat.winners]
    roles += [(seat, "other") for seat in set(dealt) - set(beat.losers) - set(beat.winners)]
    return JackpotOutcome(
        jackpot_id, program.program_id, drop, beat, tuple(sorted((s, r, ppm[r]) for s, r in roles)), program
    )


def fold(seed: int, moves: Iterable[tuple[int, Payout | None]]) -> int:
    """The fund after ``moves`` (each hand's drop and its payout, if any) from ``seed``, checking each payout was
    decided on the balance the drops and payouts before it leave (the hand's own drop first)."""
    balance = seed
    for drop, paid in moves:
        if drop < 0:
            raise InvariantViolation(f"a negative drop of {drop}")
        balance += drop
        if paid is not None:
            if paid.before != balance:
                raise InvariantViolation(f"a payout decided on a fund of {paid.before}, but the fund is {balance}")
            balance = paid.after
    return balance


@dataclass(frozen=True, slots=True)
class Fund:
    """A jackpot's fund as its ledger keeps it: what declared it, its balance and what moved it."""

    jackpot_id: str
    program_id: str
    """The program the first hand declared the jackpot with: every later hand names it."""
    seed: int
    """What the room put in when declaring it (not from a pot): counted as money in."""
    balance: int
    hands: int = 0
    """Hands settled with this jackpot (whatever their drop)."""
    drops: int = 0
    """Of them, those that dropped something."""
    dropped: int = 0
    """Every drop, summed."""
    payouts: int = 0
    """Bad beats paid."""
    paid: int = 0
    """Every payout, summed."""
    last_bad_beat: str | None = None
    """The hand id of the last bad beat paid."""
    last_paid: int = 0
    """What it paid."""
    last_at: str | None = None
    """When it was settled (the batch's instant, as the audit record writes it)."""

    def check(self) -> Fund:
        """``self`` if money in == money out (``balance == seed + dropped - paid``) and the fund is not negative,
        else :class:`InvariantViolation` (a bug: never committed)."""
        if self.balance < 0 or self.balance != self.seed + self.dropped - self.paid:
            raise InvariantViolation(
                f"jackpot {self.jackpot_id!r}: a balance of {self.balance} is not the seed {self.seed} plus "
                f"{self.dropped} dropped less {self.paid} paid (or is negative)"
            )
        return self


def declared(fund: Fund, jackpot: JackpotOutcome) -> None:
    """A hand naming ``fund``'s jackpot names its program and, if it states a seed, the declared seed; else
    :class:`InvalidEvent` ``jackpot_program_changed`` naming both."""
    if jackpot.program_id != fund.program_id:
        raise InvalidEvent.of(
            "jackpot_program_changed",
            "jackpot.program",
            f"jackpot {fund.jackpot_id!r} was declared with program {fund.program_id!r}; this hand names "
            f"{jackpot.program_id!r} (a jackpot id keeps its program: use a new id for a new program)",
        )
    if jackpot.seed is not None and jackpot.seed != fund.seed:
        raise InvalidEvent.of(
            "jackpot_program_changed",
            "jackpot.seed",
            f"jackpot {fund.jackpot_id!r} was declared with a seed of {fund.seed}; this hand states {jackpot.seed}",
        )


def take(fund: Fund | None, jackpot: JackpotOutcome, hand_id: str, at: str) -> tuple[Fund, JackpotOutcome]:
    """The hand's drop and payout through its fund (``None``: the hand declares it, with its seed or 0): the fund
    after, and ``jackpot`` with the fund before and after and each role's amount. Raises :class:`InvalidEvent`
    (:func:`declared`) or :class:`InvariantViolation`."""
    if fund is None:
        seed = jackpot.seed or 0
        fund = Fund(jackpot.jackpot_id, jackpot.program_id, seed, seed)
    else:
        declared(fund, jackpot)
    before, drop, beat = fund.balance, jackpot.drop, jackpot.beat
    balance, paid = before + drop, 0
    amounts: tuple[int, ...] = ()
    if beat is not None:
        assert jackpot.program is not None, "a bad beat is decided with its program"
        paying = payout(jackpot.program, balance, beat, [seat for seat, _, _ in jackpot.roles])
        by_seat = {share.seat: share.amount for share in paying.shares}
        amounts = tuple(by_seat[seat] for seat, _, _ in jackpot.roles)
        paid, balance = paying.paid, paying.after
    after = Fund(
        fund.jackpot_id,
        fund.program_id,
        fund.seed,
        balance,
        fund.hands + 1,
        fund.drops + (drop > 0),
        fund.dropped + drop,
        fund.payouts + (beat is not None),
        fund.paid + paid,
        hand_id if beat is not None else fund.last_bad_beat,
        paid if beat is not None else fund.last_paid,
        at if beat is not None else fund.last_at,
    ).check()
    return after, replace(jackpot, fund_before=before, fund_after=balance, amounts=amounts)


__all__ = [
    "ROLES",
    "BadBeat",
    "Fund",
    "JackpotOutcome",
    "JackpotProgram",
    "JackpotShare",
    "Payout",
    "bad_beat",
    "check_drop",
    "declared",
    "expected_drop",
    "fold",
    "hand_named",
    "outcome",
    "payout",
    "take",
]
