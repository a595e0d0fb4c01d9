"""The chips of a hand as its lines move them, written once for every text reader: the
:class:`~.builder.HandBuilder`'s (the rooms' readers) and the PokerStars reader's own working state both hold
:class:`Chips`, and a seat pays in (:func:`pay_in`), gets an uncalled bet back (:func:`give_back_to`) or collects
a pot (:func:`collected`) by the same steps and the same checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from showdown_service.histories.errors import ChipsDoNotAddUp, ImpossibleAction, ReplayError
from showdown_service.histories.record import Player


class Chips(Protocol):
    """The chips of a hand being read, by player: what each put in (live and dead), bet this street and has behind,
    who folded and who acted, the bets returned and the pots collected (by seat): the :class:`HandBuilder`'s and
    the PokerStars reader's, whose changes are the functions below, written once."""

    players: dict[str, Player]
    put: dict[str, int]
    dead: dict[str, int]
    bet: dict[str, int]
    left: dict[str, int]
    folded: set[str]
    acted: set[str]
    returned: dict[int, int]
    pots: dict[int, dict[int, int]]
    by_run: dict[int, dict[int, dict[int, int]]]


Fault = Callable[[type[ReplayError], int, str], ReplayError]
"""How a reader names an error: ``fault(kind, k, reason)``, at line ``k`` of the hand, quoting it."""


def pay_in(
    chips_of: Chips, name: str, chips: int, k: int, fault: Fault, *, to_bet: bool = True, is_dead: bool = False
) -> None:
    """``name`` puts ``chips`` from its stack into the pot (live, or dead: a small blind posted with the big one), and
    into the street's bet unless not ``to_bet`` (an ante): never after folding, never more than it has behind."""
    if name in chips_of.folded:
        raise fault(ImpossibleAction, k, f"{name} acts after folding")
    if chips > chips_of.left[name]:
        raise fault(ChipsDoNotAddUp, k, f"{name} puts in {chips} with {chips_of.left[name]} behind")
    chips_of.left[name] -= chips
    chips_of.acted.add(name)
    if is_dead:
        chips_of.dead[name] += chips
    else:
        chips_of.put[name] += chips
    if to_bet:
        chips_of.bet[name] += chips


def give_back_to(chips_of: Chips, name: str, chips: int, k: int, fault: Fault) -> None:
    """An uncalled bet of ``chips`` returned to ``name``: back to its stack, out of what it put in (never more)."""
    if chips > chips_of.put[name]:
        raise fault(ChipsDoNotAddUp, k, f"{name} gets back more than it put in")
    chips_of.put[name] -= chips
    chips_of.left[name] += chips
    seat = chips_of.players[name].seat
    chips_of.returned[seat] = chips_of.returned.get(seat, 0) + chips


def collected(chips_of: Chips, seat: int, chips: int, pot: int, run: int) -> None:
    """``seat`` collected ``chips`` from pot ``pot`` (0 the main pot), of run ``run`` (0: the hand was run once)."""
    into = chips_of.pots.setdefault(pot, {})
    into[seat] = into.get(seat, 0) + chips
    if run:
        part = chips_of.by_run.setdefault(run, {}).setdefault(pot, {})
        part[seat] = part.get(seat, 0) + chips
