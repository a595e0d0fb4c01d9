"""How each game is dealt, shared by the readers: which contract variant settles it, how many cards, which streets.

A :class:`Game` is one row of data. Both readers ask it the same
questions: how many own cards a player holds at the showdown, whether
there is a board (and how many cards each street deals to it), how many
own cards each stud street deals, how many draws there are. Adding a game
is a row here and, if a history names it differently, a spelling in
:data:`POKERSTARS_NAMES` or :data:`PHH_GAMES`.
"""

from __future__ import annotations

import re
from typing import Final, Literal, NamedTuple

from showdown_rules import VARIANT_SHAPES

Family = Literal["board", "stud", "draw"]

BOARD_STREETS: Final = (3, 1, 1)
"""Board games: the cards each street deals to the board (flop, turn, river)."""
STUD_STREETS: Final = (3, 1, 1, 1, 1)
"""Stud games: the own cards each street deals (3rd street two down and one up; 4th to 6th one up; 7th one down)."""
BOARD_SIZE: Final = sum(BOARD_STREETS)
STUD_CARDS: Final = sum(STUD_STREETS)


class Game(NamedTuple):
    """One game as dealt: what the histories call it and what settles it."""

    name: str
    """The game's name in the report and the summary (``Omaha Hi/Lo``, ``Razz``)."""
    variant: str
    """The ``ShowdownEvent.variant`` that settles it."""
    family: Family
    """``board`` (hold'em, Omaha), ``stud`` (own cards street by street) or ``draw`` (discards)."""
    cards: int
    """Own cards a player holds at the showdown."""
    draws: int = 0
    """Draw rounds (draw games: single draw 1, triple draw 3)."""
    exposed_flop_card: bool = False
    """Courchevel: the first flop card is dealt face up before the first betting round."""
    board: bool = False
    """The game has a board (and may be run more than once): ``family == "board"``."""
    stud: bool = False
    """``family == "stud"``."""
    draw: bool = False
    """``family == "draw"``."""
    counts: tuple[int, ...] = ()
    """Own cards the contract's variant takes (Omaha: 4, 5 or 6)."""
    missing_ranks: frozenset[str] = frozenset()
    """Ranks the game's deck lacks (short deck: 2 to 5)."""


def _game(name: str, variant: str, family: Family, cards: int, **extra: bool | int) -> Game:
    shape = VARIANT_SHAPES[variant]
    if cards not in shape.hole_cards:  # pragma: no cover  # a table below out of step with the contract
        raise ValueError(f"{name}: {variant} is settled with {shape.hole_text()} own cards, not {cards}")
    missing = frozenset("23456789TJQKA"[: shape.lowest_rank - 2])
    flags = {"board": family == "board", "stud": family == "stud", "draw": family == "draw"}
    return Game(name, variant, family, cards, **extra, **flags, counts=shape.hole_cards, missing_ranks=missing)  # type: ignore[arg-type]


HOLDEM: Final = _game("Hold'em", "holdem", "board", 2)
SHORT_DECK: Final = _game("6+ Hold'em", "short_deck", "board", 2)
OMAHA: Final = _game("Omaha", "omaha", "board", 4)
OMAHA_5: Final = _game("5 Card Omaha", "omaha", "board", 5)
OMAHA_6: Final = _game("6 Card Omaha", "omaha", "board", 6)
OMAHA_HILO: Final = _game("Omaha Hi/Lo", "omaha_hilo", "board", 4)
OMAHA_5_HILO: Final = _game("5 Card Omaha Hi/Lo", "omaha_hilo", "board", 5)
COURCHEVEL: Final = _game("Courchevel", "omaha", "board", 5, exposed_flop_card=True)
COURCHEVEL_HILO: Final = _game("Courchevel Hi/Lo", "omaha_hilo", "board", 5, exposed_flop_card=True)
STUD: Final = _game("7 Card Stud", "stud", "stud", STUD_CARDS)
STUD_HILO: Final = _game("7 Card Stud Hi/Lo", "stud_hilo", "stud", STUD_CARDS)
RAZZ: Final = _game("Razz", "razz", "stud", STUD_CARDS)
FIVE_CARD_DRAW: Final = _game("5 Card Draw", "five_card_draw", "draw", 5, draws=1)
SINGLE_DRAW_27: Final = _game("Single Draw 2-7 Lowball", "deuce_to_seven", "draw", 5, draws=1)
TRIPLE_DRAW_27: Final = _game("Triple Draw 2-7 Lowball", "deuce_to_seven", "draw", 5, draws=3)
BADUGI: Final = _game("Badugi", "badugi", "draw", 4, draws=3)

GAMES: Final = (
    HOLDEM, SHORT_DECK, OMAHA, OMAHA_5, OMAHA_6, OMAHA_HILO, OMAHA_5_HILO, COURCHEVEL, COURCHEVEL_HILO,
    STUD, STUD_HILO, RAZZ, FIVE_CARD_DRAW, SINGLE_DRAW_27, TRIPLE_DRAW_27, BADUGI,
)  # fmt: skip
"""Every game the readers settle."""

# -- PokerStars ------------------------------------------------------------------------

POKERSTARS_NAMES: Final[dict[str, Game]] = {
    "hold'em": HOLDEM,
    "6+ hold'em": SHORT_DECK,
    "omaha": OMAHA,
    "5 card omaha": OMAHA_5,
    "omaha 5 cards": OMAHA_5,
    "6 card omaha": OMAHA_6,
    "omaha 6 cards": OMAHA_6,
    "omaha hi/lo": OMAHA_HILO,
    "5 card omaha hi/lo": OMAHA_5_HILO,
    "omaha 5 cards hi/lo": OMAHA_5_HILO,
    "courchevel": COURCHEVEL,
    "courchevel hi/lo": COURCHEVEL_HILO,
    "7 card stud": STUD,
    "7 card stud hi/lo": STUD_HILO,
    "razz": RAZZ,
    "5 card draw": FIVE_CARD_DRAW,
    "single draw 2-7 lowball": SINGLE_DRAW_27,
    "triple draw 2-7 lowball": TRIPLE_DRAW_27,
    "badugi": BADUGI,
}
"""PokerStars' game names (as in ``Omaha Hi/Lo Pot Limit``), lower case."""

_OMAHA_HILO_6 = ("6 Card Omaha Hi/Lo", "the contract settles Omaha Hi/Lo with 4 or 5 own cards, not 6")
POKERSTARS_REFUSED: Final[dict[str, tuple[str, str]]] = {
    "6 card omaha hi/lo": _OMAHA_HILO_6,
    "omaha 6 cards hi/lo": _OMAHA_HILO_6,
    "split hold'em": ("Split Hold'em", "two boards from the first card, half the pot each: not read yet"),
    "split omaha": ("Split Omaha", "two boards from the first card, half the pot each: not read yet"),
    "split omaha hi/lo": ("Split Omaha Hi/Lo", "two boards from the first card, half the pot each: not read yet"),
    "fusion": ("Fusion", "own cards dealt on the flop and the turn too: not read yet"),
}
"""Games PokerStars deals that are refused: ``(name, why)``."""

MIXES: Final = (
    "8-Game", "HORSE", "HOSE", "Mixed NLH/PLO", "Mixed PLH/PLO", "Mixed Omaha H/L", "Mixed Hold'em", "Mixed Omaha",
    "Triple Stud", "Mixed Games", "Mixed Draw",
)  # fmt: skip
"""Mixed games: the header names the rotation, then the hand's own game in parentheses."""

_NAMES = sorted({*POKERSTARS_NAMES, *POKERSTARS_REFUSED}, key=len, reverse=True)
_NAME = re.compile(
    r"(?<![\w+])(" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in _NAMES) + r")(?![\w/])", re.IGNORECASE
)
_MIX = re.compile(r"(?<!\w)(" + "|".join(re.escape(m) for m in MIXES) + r")(?!\w)", re.IGNORECASE)


class Named(NamedTuple):
    """What a PokerStars header says about the game of its hand."""

    game: Game | None
    """``None`` when the game is refused (see ``refused``) or not named."""
    refused: tuple[str, str] | None
    """A refused game's ``(name, why)``, or ``None``."""
    mix: str
    """The mixed game's name (``HORSE``), or ``""``."""
    fixed_limit: bool
    """Fixed-limit betting: the stakes are the small and big bets, not the blinds."""


def pokerstars_game(title: str) -> Named:
    """The game of a PokerStars hand from its header's text after ``Hand #N:`` (club names in braces ignored)."""
    text = re.sub(r"\{[^{}]*\}", " ", title)
    mix = _MIX.search(text)
    found = _NAME.search(text, mix.end() if mix else 0) or _NAME.search(text)
    limit = text[found.end() :] if found else text
    fixed = bool(re.match(r"\s*(?:-\s*)?(?:fixed\s+)?limit\b", limit, re.IGNORECASE))
    mix_name = mix.group(1) if mix else ""
    if found is None:
        return Named(None, None, mix_name, fixed)
    key = " ".join(found.group(1).lower().split())
    if key in POKERSTARS_REFUSED:
        return Named(None, POKERSTARS_REFUSED[key], mix_name, fixed)
    return Named(POKERSTARS_NAMES[key], None, mix_name, fixed)


# -- PHH -------------------------------------------------------------------------------

PHH_GAMES: Final[dict[str, Game]] = {
    "T": HOLDEM,
    "S": SHORT_DECK,
    "O": OMAHA,
    "O/8": OMAHA_HILO,
    "7S": STUD,
    "7S/8": STUD_HILO,
    "R": RAZZ,
    "2L1D": SINGLE_DRAW_27,
    "2L3D": TRIPLE_DRAW_27,
    "B": BADUGI,
    "5CD": FIVE_CARD_DRAW,
}
"""PHH variant codes after the betting letter (``F`` fixed limit, ``P`` pot limit, ``N`` no limit).

The standard names ``NT FT NS PO FO/8 F7S F7S/8 FR N2L1D F2L3D FB``; the
betting structure never changes a payout, so any betting letter is read
with any game (``PO/8``, ``NO``, ``N2L3D``). It has no code for five-card
draw yet: ``F5CD``, ``P5CD`` and ``N5CD`` are this reader's."""
BETTING_LETTERS: Final = frozenset("FPN")


def phh_game(code: str) -> Game | None:
    """The game of a PHH ``variant`` code, or ``None``."""
    if len(code) < 2 or code[0] not in BETTING_LETTERS:
        return None
    return PHH_GAMES.get(code[1:])


def phh_codes() -> str:
    """The standard's codes, for messages."""
    return "NT, FT, NS, PO, FO/8, F7S, F7S/8, FR, N2L1D, F2L3D, FB, F5CD"


# -- the other rooms -------------------------------------------------------------------

_ROOM_GAMES: Final = (
    (re.compile(r"(?:6|six)[ -]?(?:card|cards)[ -]?omaha|omaha[ -]?(?:6|six)[ -]?cards?|\bplo[ -]?6\b", re.I), "6"),
    (re.compile(r"(?:5|five)[ -]?(?:card|cards)[ -]?omaha|omaha[ -]?(?:5|five)[ -]?cards?|\bplo[ -]?5\b", re.I), "5"),
    (re.compile(r"omaha", re.I), "4"),
    (re.compile(r"short[ -]?deck|6\+ ?hold", re.I), "S"),
    (re.compile(r"hold ?'?em|holdem|\bnlh\b|\blhe\b", re.I), "T"),
    (re.compile(r"razz", re.I), "R"),
    (re.compile(r"stud", re.I), "7"),
)
_HILO: Final = re.compile(
    r"hi[ -]?/?[ -]?lo|omahahl|\bh/?l\b|high[ -]?low|\b8\b|omaha ?8|/8|hilo|eight or better", re.I
)


def room_game(text: str) -> Game | None:
    """The game a room's header names (``No Limit Holdem``, ``Pot Limit OmahaHL``, ``PL Omaha Hi-Lo``,
    ``5 Card Omaha``, ``7 Card Stud Hi-Lo``, ``Razz``), or ``None``: the other rooms' spellings, one table."""
    for pattern, code in _ROOM_GAMES:
        if pattern.search(text):
            hilo = bool(_HILO.search(text))
            if code == "4":
                return OMAHA_HILO if hilo else OMAHA
            if code == "5":
                return OMAHA_5_HILO if hilo else OMAHA_5
            if code == "6":
                return None if hilo else OMAHA_6
            if code == "7":
                return STUD_HILO if hilo else STUD
            return {"S": SHORT_DECK, "T": HOLDEM, "R": RAZZ}[code]
    return None
