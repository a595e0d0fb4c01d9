"""Main and side pots from what each seat put in.

The rule, in the order it is applied:

1. Dead money (``SeatHand.dead_money``: a big-blind ante, a dead blind) is a
   slice of its own at level 0, open to every live seat.
2. Contributions are sliced at each distinct contribution level. The slice
   from level ``a`` up to level ``b`` holds, from every seat (folded or not),
   what it put in between ``a`` and ``b``; it is open to the live seats that
   reached ``b``.
3. Consecutive slices open to the same seats are one pot. The first pot is
   the main pot (so dead money lands in it unless a live seat put in nothing
   but dead money, which makes the dead money a pot of its own).
4. The top slice, when one seat alone reached it, is an uncalled bet: it is
   returned to that seat and is in no pot.

Pure: no I/O, no evaluation.
"""

from __future__ import annotations

from collections.abc import Sequence

from showdown_core.errors import InvalidEvent
from showdown_core.model import Pot, SeatHand, Share


def _seat_number(seat: SeatHand) -> int:
    return seat.seat


def build_pots(seats: Sequence[SeatHand]) -> tuple[list[Pot], list[Share]]:
    """The pots (main pot first) and the uncalled bets returned.

    Invariant: the pots' amounts plus the returned amounts equal the sum of
    every seat's ``contributed + dead_money``.
    """
    live = sorted((s for s in seats if not s.folded), key=_seat_number)
    pots: list[Pot] = []
    returned: list[Share] = []

    def add(amount: int, eligible: tuple[int, ...]) -> None:
        if not eligible:
            raise InvalidEvent.of(
                "folded_top_contribution", "players", f"{amount} chips were put in above every live seat's level"
            )
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        else:
            pots.append(Pot(amount, eligible))

    dead = sum(s.dead_money for s in seats)
    if dead:
        add(dead, tuple(s.seat for s in live))
    previous = 0
    for level in sorted({s.contributed for s in seats if s.contributed > 0}):
        band = [s for s in seats if s.contributed > previous]
        amount = sum(min(s.contributed, level) - previous for s in band)
        if len(band) == 1:  # only the top level can have a single contributor
            (alone,) = band
            if alone.folded:
                raise InvalidEvent.of(
                    "folded_top_contribution", "players", f"seat {alone.seat} folded its own uncalled {amount} chips"
                )
            returned.append(Share(alone.seat, amount))
        else:
            add(amount, tuple(s.seat for s in live if s.contributed >= level))
        previous = level
    return pots, returned
