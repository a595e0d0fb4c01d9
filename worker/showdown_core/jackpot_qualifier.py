"""A jackpot's qualifier: the hand its program names, valued in the ranking of the games the program runs in.

A program (:mod:`showdown_service.decision.jackpot_live`, docs/jackpot.md) names its qualifying hand by five ranks
(``AAATT``; four of one rank, ``2222``, is that quad with the weakest kicker the deck has) or, for a flush or a
straight flush, five ranks and ``s`` for suited (``AKQJ9s``, ``T9876s``: the usual shorthand). GGPoker's
qualifiers (issue 39: hold'em AAATT, PLO 2222, PLO-5 8888) are hands of the standard high ranking. Each rule with
its test (tests/core/test_jackpot_qualifier.py):

* **A spelling that is no hand** (a letter that is no rank, other than five ranks, or four of one rank):
  ``bad_jackpot_program``.
* **A hand the game cannot make** (issue 39, bad input: "a qualifier that names a hand the game cannot make"):
  ``jackpot_qualifier_impossible``, naming the hand, the game and why. Five of one rank (a deck holds four of each
  rank); a suited hand with two cards of one rank (a deck holds one card of each rank and suit); a rank the game's
  deck lacks (short deck is sixes to aces: no ``2222``); any high hand in a game that ranks low hands only (razz,
  deuce-to-seven, badugi: their evaluators have no full house, no flush, no quads to lose with).
* **Games the jackpot cannot judge** (``bad_jackpot_program``): a game no worker knows; a game without a board (a bad
  beat is judged on the first run-out); games in one program that value hands differently (hold'em's any five of
  seven against Omaha's two and three; the standard high ranking against short deck's, where a flush beats a full
  house): one program, one way of valuing its qualifier.

The qualifier is valued in the games' own high ranking (:class:`Qualifier`), and the bad beat judged in it
(:func:`showdown_core.jackpot.bad_beat`): a short-deck program's losing flush beats its full house.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from showdown_core.cards import parse_cards
from showdown_core.errors import InvalidEvent
from showdown_core.evaluator import HandValue
from showdown_core.ranking import RankedValue
from showdown_core.variants import ranking
from showdown_rules import VARIANT_SHAPES

RANKS: Final = "23456789TJQKA"
_SUITS: Final = "cdhs"
HighValue = HandValue | RankedValue
"""A value of a high ranking: the standard one's :class:`HandValue`, short deck's :class:`RankedValue`."""


@dataclass(frozen=True, slots=True)
class Qualifier:
    """A program's qualifying hand in the ranking of its games, and how its games make hands."""

    minimum: HighValue
    ranking: str
    """The games' high ranking (``high``, ``short_deck``, ...): the bad beat is judged in it."""
    omaha: bool
    """The games' hands are two hole cards and three of the board."""


def _impossible(spelled: str, why: str) -> InvalidEvent:
    return InvalidEvent.of("jackpot_qualifier_impossible", "qualifier.minimum", f"{spelled!r} {why}")


def hand_named(spelled: str, rank_name: str = "high", lowest_rank: int = 2, game: str = "hold'em") -> HighValue:
    """The hand ``spelled`` names (``AAATT``, ``2222``, ``AKQJ9s``) in the ranking ``rank_name`` of a deck whose
    lowest rank is ``lowest_rank`` (``game`` names it in messages).

    Unsuited ranks are dealt round the suits so that no flush is made; ``2222`` (four cards) is four deuces with the
    deck's weakest other rank. Raises :class:`InvalidEvent`: ``bad_jackpot_program`` for a spelling that is no hand,
    ``jackpot_qualifier_impossible`` for a hand no deck of the game holds (module docstring).
    """
    text = spelled.strip()
    suited = len(text) == 6 and text[-1] in "sS"
    text = (text[:-1] if suited else text).upper()
    if len(text) == 4 and len(set(text)) == 1 and text[0] in RANKS:  # quads by their rank: the weakest kicker
        text += next(r for r in RANKS[lowest_rank - 2 :] if r != text[0])
    if len(text) != 5 or any(r not in RANKS for r in text):
        raise InvalidEvent.of(
            "bad_jackpot_program",
            "qualifier.minimum",
            f"{spelled!r} names no poker hand (five ranks, e.g. AAATT; four of one rank, 2222; a flush: AKQJ9s)",
        )
    most = max(text, key=text.count)
    if text.count(most) > 4:
        raise _impossible(spelled, f"is five of a kind: a deck holds four {most}s, and {game} has no wild card")
    if suited and len(set(text)) < 5:
        raise _impossible(spelled, f"is suited with two {most}s: a deck holds one {most} of each suit")
    short = [r for r in text if RANKS.index(r) + 2 < lowest_rank]
    if short:
        raise _impossible(spelled, f"holds a {short[0]}: {game}'s deck is {RANKS[lowest_rank - 2]} to ace")
    seen: dict[str, int] = {}
    cards = []
    for r in text:
        cards.append(f"{r}{'s' if suited else _SUITS[seen.get(r, 0)]}")
        seen[r] = seen.get(r, 0) + 1
    if not suited and len(set(text)) == 5:  # five different ranks: keep them off one suit (no accidental flush)
        cards[-1] = cards[-1][0] + "d"
    value = ranking(rank_name).best(parse_cards(cards))
    assert isinstance(value, HandValue | RankedValue)
    return value


def qualifier(spelled: str, variants: Iterable[str]) -> Qualifier:
    """``spelled`` valued for a program running in ``variants``; :class:`InvalidEvent` (module docstring) for a
    hand one of them cannot make (``jackpot_qualifier_impossible``) or games it cannot judge
    (``bad_jackpot_program``)."""
    games = sorted(variants)
    if not games:
        raise InvalidEvent.of("bad_jackpot_program", "variants", "a program runs in at least one game")
    found: Qualifier | None = None
    for game in games:
        shape = VARIANT_SHAPES.get(game)
        if shape is None:
            raise InvalidEvent.of("bad_jackpot_program", "variants", f"{game!r} is no game a worker settles")
        if shape.high is None:
            raise _impossible(
                spelled,
                f"is a high hand, and {game} ranks low hands only ({shape.low}): its evaluator has no such hand",
            )
        minimum = hand_named(spelled, shape.high, shape.lowest_rank, game)
        if not shape.board_cards:
            raise InvalidEvent.of(
                "bad_jackpot_program", "variants", f"{game} has no board: a bad beat is judged on the first run-out"
            )
        if found is not None and (found.ranking, found.omaha) != (shape.high, shape.omaha):
            raise InvalidEvent.of(
                "bad_jackpot_program",
                "variants",
                f"{games[0]} and {game} value hands differently (ranking {found.ranking} or {shape.high}, Omaha's two "
                "and three or any five): one program for each",
            )
        found = Qualifier(minimum, shape.high, shape.omaha)
    assert found is not None
    return found


__all__ = ["HighValue", "Qualifier", "hand_named", "qualifier"]
