"""``showdown equity``: each hand's exact equity over every remaining board, for support staff and auditors.

``showdown equity --board Ah7d2c AsKc 7h7c`` prints each hand's share of the pot (ties split, hi-lo halves)
over every board the deck can still deal (:mod:`showdown_core.equity`), cards written together as the
rooms' hand histories write them. ``--json`` prints ``{"equities": [...], "exact": [...], "boards": N}``:
each equity a decimal of nine places (rounded half to even), its exact fraction as text, in the order given.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from showdown_core import InvalidEvent
from showdown_core.cards import Card, parse_card
from showdown_core.equity import equity
from showdown_core.variants import VARIANTS
from showdown_rules import VARIANT_SHAPES

BOARD_GAMES = tuple(name for name, shape in VARIANT_SHAPES.items() if shape.board_cards)
"""The games with a board: the ones whose equity is dealt over remaining boards."""
PLACES = 9
"""Decimal places of each equity in ``--json`` (at least six, as the issue asks)."""
_RANK_TEXT = frozenset("23456789TJQKAtjqka")
_SUIT_TEXT = frozenset("cdhsCDHS♣♦♥♠")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``equity`` to the ``showdown`` parser."""
    eq = commands.add_parser(
        "equity", help="each hand's exact equity over every remaining board (ties split, hi-lo halves)"
    )
    eq.add_argument(
        "hands", nargs="+", metavar="HAND", help="a hand's cards written together, as rooms write them: AsKc, 7h7c"
    )
    eq.add_argument(
        "--variant", choices=BOARD_GAMES, default="holdem", help="the game (a game with a board; default holdem)"
    )
    eq.add_argument("--board", default="", metavar="CARDS", help="the board known so far, e.g. Ah7d2c (0, 3 or 4)")
    eq.add_argument("--dead", default="", metavar="CARDS", help="cards out of the deck (a folded hand's, if known)")
    eq.add_argument("--json", action="store_true", help='print {"equities": [...]} (decimals, in the order given)')
    eq.set_defaults(run=run)


def split_cards(text: str, where: str) -> tuple[Card, ...]:
    """The cards of ``text``, written together (``AsKc``, ``10d9d``, ``A♠K♣``); spaces and commas between
    them are allowed. Raises :class:`InvalidEvent` naming the character that is no card and why."""
    cards: list[Card] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in " ,":
            i += 1
            continue
        start = i
        if text.startswith("10", i):
            i += 2
        elif text[i] in _RANK_TEXT:
            i += 1
        else:
            raise InvalidEvent.of(
                "bad_card", where, f"{text!r}: {text[i]!r} at character {i + 1} is not a rank (23456789TJQKA or 10)"
            )
        if i >= n or text[i] not in _SUIT_TEXT:
            got = "nothing" if i >= n else repr(text[i])
            raise InvalidEvent.of(
                "bad_card", where, f"{text!r}: the card at character {start + 1} has {got} for a suit (c, d, h, s)"
            )
        i += 1
        if i < n and text[i] == "\ufe0f":  # the emoji variation selector after a suit symbol
            i += 1
        cards.append(parse_card(text[start:i], f"{where}[{len(cards)}]"))
    return tuple(cards)


def decimal(share: Fraction, places: int = PLACES) -> str:
    """``share`` (0..1) as a decimal of ``places`` places, rounded half to even: ``0.450161011``."""
    scaled = round(share * 10**places)  # Fraction rounds half to even
    whole, part = divmod(scaled, 10**places)
    return f"{whole}.{part:0{places}d}"


def run(args: argparse.Namespace) -> int:
    try:
        holes = [split_cards(text, f"hands[{i}]") for i, text in enumerate(args.hands)]
        board = split_cards(args.board, "board")
        dead = split_cards(args.dead, "dead")
        result = equity(VARIANTS[args.variant], holes, board, dead)
    except InvalidEvent as exc:
        print(f"showdown equity: {exc}", file=sys.stderr)
        return 2
    if args.json:
        equities = ", ".join(decimal(share) for share in result.shares)
        exact = ", ".join(f'"{share.numerator}/{share.denominator}"' for share in result.shares)
        print(f'{{"equities": [{equities}], "exact": [{exact}], "boards": {result.boards}}}')
        return 0
    width = max(len(text) for text in args.hands)
    for text, share in zip(args.hands, result.shares, strict=True):
        print(f"{text:<{width}}  {decimal(share * 100, 4)}%  ({share.numerator}/{share.denominator})")
    print(f"over {result.boards:,} board{'s' if result.boards != 1 else ''} ({VARIANT_SHAPES[args.variant].label})")
    return 0
