"""The pure core of showdown: cards, the hand evaluator, pots and settlement.

Nothing here does I/O or knows about Redis, JSON or logging: values in,
values out. The service (:mod:`showdown_service`) parses events at the
boundary and hands this package typed values.
"""

from showdown_core.cards import BY_TEXT, DECK, Card, parse_card, parse_cards
from showdown_core.errors import InvalidEvent, InvariantViolation, ShowdownError
from showdown_core.evaluator import VALUES, Board, Category, HandValue, best_five, evaluate, evaluate_showdown, value_of
from showdown_core.model import Bust, Pot, PotPart, PotResult, SeatHand, Settlement, Share, Showdown, Shown
from showdown_core.pots import build_pots
from showdown_core.ranking import RankedValue, Ranking, Value
from showdown_core.settlement import settle
from showdown_core.variants import HOLDEM, STUD, VARIANTS, Variant

__all__ = [
    "BY_TEXT",
    "DECK",
    "HOLDEM",
    "STUD",
    "VALUES",
    "VARIANTS",
    "Board",
    "Bust",
    "Card",
    "Category",
    "HandValue",
    "InvalidEvent",
    "InvariantViolation",
    "Pot",
    "PotPart",
    "PotResult",
    "RankedValue",
    "Ranking",
    "SeatHand",
    "Settlement",
    "Share",
    "Showdown",
    "ShowdownError",
    "Shown",
    "Value",
    "Variant",
    "best_five",
    "build_pots",
    "evaluate",
    "evaluate_showdown",
    "parse_card",
    "parse_cards",
    "settle",
    "value_of",
]
