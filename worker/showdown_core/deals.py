"""Final-table deals: what each remaining entry is guaranteed, in whole units of the prize currency.

The rules (sources in docs/tournaments.md "Deals"; where the rooms leave a
choice, ours), each with a test named for it:

* **What is shared**: the prizes not yet paid (places 1 .. entries left),
  less ``left_to_play_for`` (L), kept back for the eventual winner. Bounty
  money is never part of a deal (GGPoker: "the chip-chop deal will only
  involve the regular prize pool and not include the bounty amount").
* **ICM** (PokerStars, GGPoker): Malmuth-Harville (:mod:`showdown_core.icm`)
  over the unpaid prizes with L taken off first prize first; L may not exceed
  first prize minus second (it would make 1st pay less than 2nd). At most
  ``MAX_ICM_DEAL_ENTRIES`` (20) entries (``deal_too_large`` beyond): the
  values of a field over 10 stacks are a Monte Carlo whose work grows with
  the field, and a deal is decided inside a worker's commit.
* **Chip chop**: (unpaid prizes - L) x stack / chips in play.
* **Equal split** (PokerStars): (unpaid prizes - L) / entries.
* **Custom**: the amounts given, which must add up to unpaid prizes - L exactly.
* **Rounding** (ours): each amount rounded down to the smallest unit; the units
  left over go one each by the largest fractional part (ties: the bigger
  stack, then entry order). Each amount is within one unit of its exact value
  and the sum is exact.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import floor
from typing import Final, Literal

from showdown_core.errors import InvalidEvent, InvariantViolation
from showdown_core.icm import icm
from showdown_rules import MAX_ICM_DEAL_ENTRIES

Method = Literal["icm", "chip_chop", "equal", "custom"]
METHODS: Final = ("icm", "chip_chop", "equal", "custom")


def round_amounts(values: Sequence[Fraction], stacks: Sequence[int]) -> tuple[int, ...]:
    """``values`` (exact, adding up to a whole number) in whole units: each rounded down, the units left over
    one each by the largest fractional part, ties to the bigger stack, then the earlier in the order given
    (entry order)."""
    floors = [floor(v) for v in values]
    total = sum(values, Fraction(0))
    if total.denominator != 1:
        raise InvariantViolation(f"deal values add up to {total}, not a whole amount")
    left = int(total) - sum(floors)
    if not 0 <= left < max(1, len(values)):
        raise InvariantViolation(f"{left} units left over rounding {len(values)} deal amounts")
    by_fraction = sorted(range(len(values)), key=lambda i: (-(values[i] - floors[i]), -stacks[i], i))
    for i in by_fraction[:left]:
        floors[i] += 1
    return tuple(floors)


def deal_values(
    method: str,
    stacks: Sequence[int],
    unpaid: Sequence[int],
    left_to_play_for: int = 0,
    custom: Sequence[int] | None = None,
) -> tuple[Fraction, ...]:
    """The exact guaranteed amount of each remaining entry (``stacks`` in entry order; ``unpaid``: the prizes of
    places 1 .. len(stacks) not yet paid). Raises :class:`InvalidEvent` for a deal that cannot be made."""
    n = len(stacks)
    if n < 2:
        raise InvalidEvent.of("deal_entries", "entries", f"{n} entries: a deal needs at least two")
    if len(unpaid) != n:
        raise InvariantViolation(f"{len(unpaid)} unpaid prizes for {n} entries")
    pool = sum(unpaid)
    kept = left_to_play_for
    if kept < 0:
        raise InvalidEvent.of("deal_amounts", "left_to_play_for", f"{kept} is negative")
    most = unpaid[0] - unpaid[1]
    if kept > most:
        raise InvalidEvent.of(
            "deal_amounts",
            "left_to_play_for",
            f"{kept} is more than first prize minus second ({unpaid[0]} - {unpaid[1]} = {most}): 1st would be "
            f"guaranteed less than 2nd",
        )
    shared = pool - kept
    if method == "custom":
        if custom is None or len(custom) != n:
            raise InvalidEvent.of("deal_amounts", "entries", "a custom deal gives every entry's amount")
        if sum(custom) != shared:
            raise InvalidEvent.of(
                "deal_amounts",
                "entries",
                f"the amounts add up to {sum(custom)}, not the unpaid prizes {pool} less {kept} left to play for "
                f"({shared})",
            )
        return tuple(Fraction(a) for a in custom)
    if custom is not None:
        raise InvalidEvent.of("deal_amounts", "entries", f"amounts are given only with method 'custom', not {method!r}")
    if method == "icm":
        if n > MAX_ICM_DEAL_ENTRIES:
            raise InvalidEvent.of(
                "deal_too_large",
                "entries",
                f"{n} entries: an icm deal is shared between at most {MAX_ICM_DEAL_ENTRIES} (its Monte Carlo's work "
                "grows with the field); agree it as chip_chop, equal or custom",
            )
        return icm(stacks, (unpaid[0] - kept, *unpaid[1:]))
    if method == "chip_chop":
        chips = sum(stacks)
        return tuple(Fraction(shared * s, chips) for s in stacks)
    if method == "equal":
        return tuple(Fraction(shared, n) for _ in stacks)
    raise InvalidEvent.of("deal_amounts", "method", f"{method!r} is not one of {', '.join(METHODS)}")


def deal_amounts(
    method: str,
    stacks: Sequence[int],
    unpaid: Sequence[int],
    left_to_play_for: int = 0,
    custom: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """Each remaining entry's guaranteed amount in whole units (see :func:`deal_values`, :func:`round_amounts`);
    they add up to the unpaid prizes less ``left_to_play_for`` exactly (checked)."""
    values = deal_values(method, stacks, unpaid, left_to_play_for, custom)
    amounts = round_amounts(values, stacks)
    if sum(amounts) != sum(unpaid) - left_to_play_for:
        raise InvariantViolation(f"deal amounts {amounts} do not add up to {sum(unpaid) - left_to_play_for}")
    return amounts
