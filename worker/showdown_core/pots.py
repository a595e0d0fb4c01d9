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
from operator import attrgetter
from typing import Final

from showdown_core.errors import InvalidEvent
from showdown_core.model import Pot, SeatHand, Share, from_fields

_CONTRIBUTION: Final = attrgetter("contributed")


def build_pots(seats: Sequence[SeatHand]) -> tuple[list[Pot], list[Share]]:
    """The pots (main pot first) and the uncalled bets returned.

    Invariant: the pots' amounts plus the returned amounts equal the sum of
    every seat's ``contributed + dead_money``.

    The usual showdown (every live seat put in the most anyone did) is one pot
    open to every live seat, dead money included, and is made at once; so is
    the usual hand that nobody called (one live seat, which put in the most):
    one pot open to it, and the part of its bet above everybody else's back.

    Levels are the distinct contributions, so no seat's contribution lies
    strictly between two consecutive levels: the slice from ``previous`` to
    ``level`` holds exactly ``level - previous`` from each seat that reached
    ``level``.
    """
    live = [s.contributed for s in seats if not s.folded]
    levels = [s.contributed for s in seats]
    top = max(levels)
    if len(live) > 1 and min(live) == top:  # the usual showdown: one pot
        total = sum(levels) + sum([s.dead_money for s in seats])
        eligible = tuple(sorted([s.seat for s in seats if not s.folded]))
        return ([from_fields(Pot, (total, eligible))] if total else []), []  # no chips at all: no pot, as sliced
    if len(live) == 1 and live[0] == top:  # everybody else folded: one pot, and the bet nobody matched back
        seat = seats[[s.folded for s in seats].index(False)].seat
        total = sum(levels) + sum([s.dead_money for s in seats])
        levels.remove(top)  # the live seat's (or another's as high): the next level is everybody else's most
        back = top - max(levels, default=0)
        return (
            [from_fields(Pot, (total - back, (seat,)))] if total > back else [],
            [from_fields(Share, (seat, back))] if back else [],
        )
    return sliced(seats)


def sliced(seats: Sequence[SeatHand]) -> tuple[list[Pot], list[Share]]:
    """:func:`build_pots` by the general slicing alone (every case; the two usual ones are made at once there, and
    a test holds them equal to this)."""
    pots: list[Pot] = []
    returned: list[Share] = []
    dead = 0
    for s in seats:
        dead += s.dead_money
    if dead:
        pots.append(from_fields(Pot, (dead, tuple(sorted([s.seat for s in seats if not s.folded])))))
    by_level = sorted(seats, key=_CONTRIBUTION)
    count = len(by_level)
    previous = 0
    i = 0
    while i < count:
        level = by_level[i].contributed
        if level > previous:
            reaching = by_level[i:]
            amount = (level - previous) * len(reaching)
            if len(reaching) == 1:  # only the top level can have a single contributor
                alone = reaching[0]
                if alone.folded:
                    raise InvalidEvent.of(
                        "folded_top_contribution",
                        "players",
                        f"seat {alone.seat} folded its own uncalled {amount} chips",
                    )
                returned.append(from_fields(Share, (alone.seat, amount)))
            else:
                eligible = tuple(sorted([s.seat for s in reaching if not s.folded]))
                if not eligible:
                    raise InvalidEvent.of(
                        "folded_top_contribution",
                        "players",
                        f"{amount} chips were put in above every live seat's level",
                    )
                if pots and pots[-1].eligible == eligible:
                    pots[-1] = from_fields(Pot, (pots[-1].amount + amount, eligible))
                else:
                    pots.append(from_fields(Pot, (amount, eligible)))
            previous = level
        i += 1
    return pots, returned
