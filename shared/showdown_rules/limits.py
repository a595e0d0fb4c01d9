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
MAX_ORDINAL: Final = 2**53 - 1
"""Largest entry, purchase or hand-for-hand round number: exact as a double, like every amount of a result (and
well inside the 64 bits every ledger and JSON encoder holds)."""
MAX_ID_LENGTH: Final = 200
MAX_ICM_DEAL_ENTRIES: Final = 20
"""Most entries an ``icm`` deal shares the prizes between (``deal_too_large`` beyond): over 10 stacks the values
are a Monte Carlo of 100,000 finishing orders, whose work grows with the field (20 entries: 2,000,000 draws, once
per deal: about 3 s on one free core of a 2-core machine, 8-10 s with that machine's load average at 7). A larger
table agrees a ``chip_chop``, ``equal`` or ``custom`` deal."""
INVISIBLE_RANGES: Final = (
    (0x00, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F),
    (0x890, 0x891), (0x8E2, 0x8E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064),
    (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip
"""Characters an id may not hold, as (first, last) code points: the controls (Unicode category Cc), the format
characters (Cf: U+200B zero width space, U+202E right-to-left override, U+FEFF byte order mark, ...) and the line
and paragraph separators (Zl, Zp) of Unicode 15. They are invisible or reorder text, so two ids that print alike
could differ, and a listing could be reversed. Surrogates (Cs) cannot reach an id: JSON text refuses them."""


def _escaped(code: int) -> str:
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


ID_PATTERN: Final = (
    "^[^" + "".join(_escaped(a) + ("" if a == b else "-" + _escaped(b)) for a, b in INVISIBLE_RANGES) + "]+$"
)
"""An id: one or more characters, none of :data:`INVISIBLE_RANGES` (a regular expression Python's ``re`` and
pydantic-core's Rust engine read alike; the JSON Schema carries it)."""
PPM: Final = 1_000_000
"""``rake_ppm`` is in parts per million of the pot: 4.5% is 45_000."""
