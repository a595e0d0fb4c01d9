"""Limits of the contract. Chips are whole numbers of the table's smallest unit."""

from __future__ import annotations

from typing import Final

SCHEMA_VERSION: Final = 1
MAX_PLAYERS: Final = 10
MAX_SEAT: Final = 10
"""Seats are numbered clockwise 1..MAX_SEAT; odd chips go clockwise from the button."""
MAX_TOTAL_CHIPS: Final = 2**53 - 1
"""Largest total of chips put in by all seats: every amount in a result is then exact as a double
(JavaScript and many JSON readers use doubles)."""
MAX_CHIPS: Final = 10**15
"""Largest chip amount accepted in any field (well inside a double's exact integers)."""
MAX_ID_LENGTH: Final = 200
PPM: Final = 1_000_000
"""``rake_ppm`` is in parts per million of the pot: 4.5% is 45_000."""
