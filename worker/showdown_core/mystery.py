"""Mystery bounties: from a stage of the tournament on, each elimination wins an envelope from a published pool.

The rules (PokerStars, GGPoker, partypoker "Mystery Bounty"; where they leave
a choice, ours), each with a test named for it:

* The pool is published: envelope amounts (the prize currency's smallest
  unit) and how many of each. The room draws; a hand reports, for each seat it
  eliminated, the envelope drawn for it. Every envelope is paid once: an
  amount not in the pool, or one whose envelopes are all drawn, is refused.
* An envelope is paid to the winner(s) of the eliminated seat's relevant pot,
  divided as a knockout bounty is (:mod:`showdown_core.bounties`), always as
  cash (also in a progressive knockout: nothing is added to a head).
* Envelopes paid plus envelopes left equal the pool, always (checked).

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from showdown_core.bounties import award_bounties, eliminated
from showdown_core.errors import InvalidEvent, InvariantViolation
from showdown_core.model import BountyAward, Settlement
from showdown_rules.limits import PPM


def pool_of(envelopes: Iterable[tuple[int, int]]) -> dict[int, int]:
    """``(amount, count)`` pairs as envelopes by amount (an amount listed twice counts once with both counts)."""
    pool: dict[int, int] = {}
    for amount, count in envelopes:
        pool[amount] = pool.get(amount, 0) + count
    return pool


def pool_value(pool: Mapping[int, int]) -> int:
    """The money in ``pool`` (envelopes by amount)."""
    return sum(amount * count for amount, count in pool.items())


def draw(
    settlement: Settlement, draws: Sequence[tuple[int, int]], left: Mapping[int, int]
) -> tuple[dict[int, int], dict[int, int]]:
    """Check a hand's envelopes (``(seat, amount)`` in the order given) against its eliminations and the
    envelopes ``left``: one for each eliminated seat and no other, each from the pool and not used up.

    Returns ``(amount by eliminated seat, envelopes left after them)``; raises :class:`InvalidEvent`
    (``mystery_bounty_seat`` or ``mystery_bounty_envelope``, naming the entry of ``mystery_bounties``).
    """
    gone = {s.seat for s in eliminated(settlement.showdown, settlement.collected)}
    drawn: dict[int, int] = {}
    after = dict(left)
    for i, (seat, amount) in enumerate(draws):
        where = f"mystery_bounties[{i}]"
        if seat in drawn:
            raise InvalidEvent.of("mystery_bounty_seat", f"{where}.seat", f"seat {seat} has an envelope already")
        if seat not in gone:
            raise InvalidEvent.of(
                "mystery_bounty_seat", f"{where}.seat", f"seat {seat} was not eliminated in this hand: no envelope"
            )
        if amount not in after:
            listed = ", ".join(str(a) for a in sorted(after)) or "none"
            raise InvalidEvent.of(
                "mystery_bounty_envelope", f"{where}.amount", f"{amount} is not an envelope of the pool ({listed})"
            )
        if after[amount] == 0:
            raise InvalidEvent.of(
                "mystery_bounty_envelope", f"{where}.amount", f"every {amount} envelope of the pool is drawn already"
            )
        after[amount] -= 1
        drawn[seat] = amount
    missing = sorted(gone - drawn.keys())
    if missing:
        raise InvalidEvent.of(
            "mystery_bounty_seat",
            "mystery_bounties",
            f"seat {missing[0]} was eliminated in the mystery-bounty stage and has no envelope",
        )
    return drawn, after


def left_after(left: Mapping[int, int], drawn: Iterable[int]) -> dict[int, int]:
    """The envelopes ``left`` once those of the amounts ``drawn`` are taken (checked by :func:`draw` first)."""
    after = dict(left)
    for amount in drawn:
        if after.get(amount, 0) < 1:
            raise InvariantViolation(f"a {amount} envelope drawn with none left")
        after[amount] -= 1
    return after


def award(settlement: Settlement, drawn: Mapping[int, int]) -> tuple[BountyAward, ...]:
    """Each drawn envelope paid to the winners of its seat's relevant pot, all cash, divided as a knockout
    bounty is; every envelope paid whole (checked)."""
    if not drawn:
        return ()
    heads = [drawn.get(s.seat, 0) for s in settlement.showdown.seats]
    awards = award_bounties(settlement.showdown, settlement.pots, settlement.collected, settlement.shown, heads, PPM)
    if sum(share.cash for a in awards for share in a.winners) != sum(drawn.values()):
        raise InvariantViolation(f"hand {settlement.showdown.hand_id!r}: an envelope was not paid whole; refusing")
    return awards
