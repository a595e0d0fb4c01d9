"""The currency a replayed hand's amounts are in, as a code: no figure of a replay adds two currencies.

A hand's chips are whole numbers of its currency's smallest unit (cents for
a cash game in dollars, euros or pounds; the chip for a tournament). The code
is the ISO 4217 one where the history's symbol names a single currency
(``$`` USD, ``€`` EUR, ``£`` GBP, ``₹`` INR) or the history writes the code
itself (iPoker's ``<tablecurrency>EUR</tablecurrency>``, Open Hand History's
``"currency": "USD"``, PHH's ``currency = 'USD'``); :data:`CHIPS` for
tournament chips; a play-money or other name as the room writes it
(PokerStars' ``Play Money``, OHH's ``XPM``); the symbol itself when it names
several (``¥``: yen or yuan); ``""`` when the history writes none (a PHH file
without ``currency``). The replay's summary gives the rake per code
(docs/replay.md, the summary).
"""

from __future__ import annotations

from typing import Final

CHIPS: Final = "chips"
"""A tournament's chips: no currency, whatever the buy-in was paid in."""

ISO_4217: Final = {"$": "USD", "€": "EUR", "£": "GBP", "₹": "INR"}
"""The symbols rooms write that name one currency, with its ISO 4217 code (``$`` is the US dollar in every room
read here: partypoker writes ``USD`` beside it)."""


def currency_code(written: str, *, tournament: bool) -> str:
    """The code of a hand whose history writes ``written`` (a symbol, a code, or ``""``): :data:`CHIPS` in a
    tournament."""
    if tournament:
        return CHIPS
    text = written.strip()
    return ISO_4217.get(text, text)
