"""The standard high ranking (hold'em, Omaha high, stud, five-card draw): best five cards.

A thin :class:`~showdown_core.ranking.Ranking` over the 7,462-class
evaluator in :mod:`showdown_core.evaluator`, whose hold'em showdown path
(board done once) it uses as is, and over :mod:`showdown_core.omaha` for
Omaha's two own and three board cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from showdown_core.cards import Card
from showdown_core.evaluator import VALUES, HandValue, best_five, evaluate, evaluate_showdown, omaha_five
from showdown_core.omaha import evaluate_omaha, prepare_omaha
from showdown_core.ranking import Ranking, Value


class High(Ranking):
    """Best five cards, ace high (and low in the wheel, 5-4-3-2-A)."""

    name = "high"
    values = VALUES

    def best(self, cards: Sequence[Card]) -> HandValue:
        return evaluate(cards)

    def with_board(self, board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[Value | None]:
        if not board:
            return [evaluate(hole) for hole in holes]
        # the message model has checked every card of the event for repeats
        return evaluate_showdown(board, holes, assume_distinct=True)  # type: ignore[return-value]  # list is invariant

    def prepare(self) -> None:
        prepare_omaha()

    def omaha(self, board: Sequence[Card], holes: Sequence[Sequence[Card]]) -> list[Value | None]:
        return evaluate_omaha(board, holes)  # type: ignore[return-value]  # list is invariant

    def playing_cards(self, cards: Sequence[Card], value: Value) -> tuple[Card, ...]:
        return best_five(cards, value)  # type: ignore[arg-type]  # a value of this ranking is a HandValue

    def omaha_playing_cards(self, board: Sequence[Card], hole: Sequence[Card], value: Value) -> tuple[Card, ...]:
        """The general search's five (:meth:`Ranking.omaha_playing_cards`), found by :func:`omaha_five`."""
        five = omaha_five(board, hole, value)  # type: ignore[arg-type]  # a value of this ranking is a HandValue
        if five is None:
            raise ValueError(f"{value!r} is not made by two of {hole} and three of {board}")
        return self.playing_cards(five, value)


HIGH: Final = High()
