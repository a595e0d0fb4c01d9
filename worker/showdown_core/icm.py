"""The Independent Chip Model: what a tournament stack is worth in prize money.

Malmuth-Harville (the model every ICM deal and calculator uses): a stack
finishes 1st with probability its share of the chips in play; given who took
the places above, it finishes in the next place with its share of the chips
that are left; so on down the payouts. A stack's value is the sum over places
of the probability of finishing there times that place's prize.

Two methods, one stated rule for which runs:

* **Exact** (:func:`icm_exact`), in rational arithmetic (:class:`fractions.Fraction`,
  so a deal's rounding is decided exactly): a dynamic programme over the
  sets of stacks that took the places above (each set's probability is
  memoised, not recomputed per order), ``sum(C(n, k) for k < paid places)``
  sets. Used whenever that count is at most :data:`EXACT_MAX_SETS` (1,024),
  which covers every field of up to 10 stacks, and larger fields with few
  places paid.
* **Monte Carlo** (:func:`icm_monte_carlo`) beyond that: :data:`TRIALS`
  finishing orders drawn from the Malmuth-Harville distribution itself (an
  exponential race: each stack draws ``Exp(1) / stack`` and the smallest
  finishes 1st, which it does with probability its share of the chips, and
  the race among the rest is again one, so the order is Harville's), from a
  fixed seed (:data:`SEED`) through SplitMix64 (written here: the core
  keeps no hidden random state, and the stream is the same on every Python),
  so the same field always gets the same values.
  Each trial pays every prize once, so the values add up to the prizes
  exactly; each is within about 0.3% of the prize pool of its exact value
  (tested against the exact method).

Stacks are chips (positive whole numbers); prizes are money in the
currency's smallest unit, for 1st, 2nd, ... (places beyond the list win 0).
Pure: no I/O.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from fractions import Fraction
from math import comb, log
from typing import Final

from showdown_core.errors import InvalidEvent

EXACT_MAX_SETS: Final = 1 << 10
"""The exact method runs when it visits at most this many sets of stacks (every field of up to 10 stacks)."""
TRIALS: Final = 100_000
"""Finishing orders the Monte Carlo method draws."""
SEED: Final = 29
"""The Monte Carlo method's fixed seed: one field, one answer, on every machine and in every replay."""


def _check(stacks: Sequence[int], prizes: Sequence[int]) -> None:
    if not stacks:
        raise InvalidEvent.of("bad_stacks", "stacks", "no stacks: ICM needs at least one")
    for i, s in enumerate(stacks):
        if isinstance(s, bool) or not isinstance(s, int) or s <= 0:
            raise InvalidEvent.of("bad_stacks", f"stacks[{i}]", f"{s!r} is not a positive whole number of chips")
    for i, p in enumerate(prizes):
        if isinstance(p, bool) or not isinstance(p, int) or p < 0:
            raise InvalidEvent.of("bad_payouts", f"prizes[{i}]", f"{p!r} is not a whole amount from 0")
    if len(prizes) > len(stacks):
        raise InvalidEvent.of(
            "bad_payouts",
            "prizes",
            f"{len(prizes)} prizes for {len(stacks)} stacks: a prize nobody can finish in cannot be shared out",
        )
    for i in range(1, len(prizes)):
        if prizes[i] > prizes[i - 1]:
            raise InvalidEvent.of("bad_payouts", f"prizes[{i}]", f"{prizes[i]} is more than place {i}'s prize")


def sets_visited(players: int, paid: int) -> int:
    """How many sets of stacks the exact method visits for ``players`` stacks and ``paid`` prizes."""
    return sum(comb(players, k) for k in range(min(paid, players)))


def icm(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[Fraction, ...]:
    """Each stack's ICM value, in the stacks' order: exact when :func:`is_exact`, else by Monte Carlo."""
    if is_exact(len(stacks), len(prizes)):
        return icm_exact(stacks, prizes)
    return icm_monte_carlo(stacks, prizes)


def is_exact(players: int, paid: int) -> bool:
    """Whether :func:`icm` computes exactly (at most :data:`EXACT_MAX_SETS` sets) for this field."""
    return sets_visited(players, paid) <= EXACT_MAX_SETS


def icm_exact(stacks: Sequence[int], prizes: Sequence[int]) -> tuple[Fraction, ...]:
    """Malmuth-Harville values, exactly: their sum is the prizes' sum."""
    _check(stacks, prizes)
    n = len(stacks)
    total = sum(stacks)
    values = [Fraction(0)] * n
    layer: dict[int, tuple[Fraction, int]] = {0: (Fraction(1), total)}
    """Sets of stacks that took the places above (a bitmask) -> (probability, chips of the stacks left)."""
    for prize in prizes:
        following: dict[int, tuple[Fraction, int]] = {}
        for taken, (chance, left) in layer.items():
            for i in range(n):
                bit = 1 << i
                if taken & bit:
                    continue
                here = chance * stacks[i] / left  # ``i`` takes this place
                values[i] += here * prize
                known = following.get(taken | bit)
                following[taken | bit] = (here if known is None else known[0] + here, left - stacks[i])
        layer = following
    return tuple(values)


def icm_monte_carlo(
    stacks: Sequence[int], prizes: Sequence[int], *, trials: int = TRIALS, seed: int = SEED
) -> tuple[Fraction, ...]:
    """Malmuth-Harville values estimated from ``trials`` finishing orders drawn with ``seed``; their sum is the
    prizes' sum exactly (each trial pays every prize once)."""
    _check(stacks, prizes)
    if trials < 1:
        raise ValueError(f"trials {trials} is not at least 1")
    n, paid = len(stacks), len(prizes)
    rates = [float(s) for s in stacks]
    won = [0] * n
    """Prize money each stack won over all trials."""
    order = range(n)
    whole = paid == n  # every place paid: the whole order, by a sort (nsmallest(n) is that sort, documented so)
    mask, golden, mix1, mix2, unit = _MASK, _GOLDEN, _MIX1, _MIX2, _UNIT  # locals: read once per draw
    state = seed & mask
    for _ in range(trials):
        race: list[float] = []
        draw = race.append
        for rate in rates:  # Exp(1) / stack, each uniform from SplitMix64 inline (as _splitmix64 draws it)
            state = (state + golden) & mask
            z = ((state ^ (state >> 30)) * mix1) & mask
            z = ((z ^ (z >> 27)) * mix2) & mask
            draw(-log((((z ^ (z >> 31)) >> 11) + 1) / unit) / rate)
        placed = sorted(order, key=race.__getitem__) if whole else heapq.nsmallest(paid, order, key=race.__getitem__)
        for place, i in enumerate(placed):
            won[i] += prizes[place]
    return tuple(Fraction(w, trials) for w in won)


_MASK: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15
_MIX1: Final = 0xBF58476D1CE4E5B9
_MIX2: Final = 0x94D049BB133111EB
_UNIT: Final = float(1 << 53)


def _splitmix64(seed: int) -> Iterator[float]:
    """Uniform numbers in (0, 1] from SplitMix64 (Steele, Lea and Flood 2014; 53 bits each)."""
    state = seed & _MASK
    while True:
        state = (state + _GOLDEN) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * _MIX1) & _MASK
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK
        z ^= z >> 31
        yield ((z >> 11) + 1) / (1 << 53)
