"""The words several rooms write the same, as one pattern or table each, for the readers to share
(:mod:`.reading` holds the steps they share): a bracket's cards, the streets' board sizes, a section line, an
uncalled bet returned, a seat line, the button's seat, 888poker's and partypoker's game number."""

from __future__ import annotations

import re
from typing import Final

CARDS: Final = re.compile(r"\[([^\]]*)\]")
"""A bracket's cards (group 1): ``[Ah Kd]``."""
STREETS: Final = {"FLOP": 3, "TURN": 4, "RIVER": 5}
"""The board's size once each street is dealt (``*** FLOP ***``, ``*** TURN ***``, ``*** RIVER ***``)."""
STREETS_TITLED: Final = {"Flop": 3, "Turn": 4, "River": 5}
"""The same for the rooms that write the streets' names so (``Flop``: Entraction, iPoker, PKR, Open Hand History)."""
STREETS_LOWER: Final = {"flop": 3, "turn": 4, "river": 5}
"""The same for the rooms that write them in lower case (``** Dealing flop **``: 888poker, partypoker, OnGame)."""
RUNS: Final = {"FIRST": 1, "SECOND": 2, "THIRD": 3}
"""A hand run more than once: the run a section's first word names (``*** SECOND FLOP ***``)."""
SECTION: Final = re.compile(r"^\*\*\* (.+?) \*\*\*\s*(.*)$")
"""A ``*** NAME *** [cards]`` line (group 1 the name, 2 what follows)."""
RUN_SECTION: Final = re.compile(r"^\*\*\* (?:(FIRST|SECOND|THIRD) )?(.+?) \*\*\*\s*(.*)$")
"""The same with a run's first word (group 1, when written), as PokerStars and GGPoker write a hand run twice."""
UNCALLED: Final = re.compile(r"^Uncalled bet \((\S+)\) returned to (.+?)\s*$")
"""``Uncalled bet ($0.51) returned to NAME`` (group 1 the chips, 2 the name: :func:`returned`)."""
UNCALLED_OF: Final = re.compile(r"^Uncalled bet of (\S+) returned to (.+?)\s*$")
"""``Uncalled bet of 2€ returned to NAME``, Full Tilt's and Winamax's words."""
TOURNAMENT_NUMBER: Final = re.compile(r"Tournament #(\d+)", re.I)
"""A tournament's number in a hand's header (group 1)."""
STARS_SEAT: Final = re.compile(r"^Seat (\d+): (.+) \(([^()\s]+) in chips(?:, ([^()\s]+) bounty)?[^()]*\)(.*)$")
"""PokerStars' seat line, GGPoker's too: ``Seat 1: NAME ($5 in chips, $2 bounty) is sitting out`` (the seat, the
name, the stack, the bounty when written, the rest)."""
SUMMARY_SEAT: Final = re.compile(r"^Seat (\d+): (.*)$")
"""A summary's seat line: the seat and what it says of the seat."""
BUTTON_SEAT: Final = re.compile(r"^Seat (\d+) is the button$")
"""``Seat 4 is the button`` (888poker, partypoker, WPN)."""
BRACKETED_SEAT: Final = re.compile(r"^Seat (\d+): (.+) \( ?([^()]*?) ?\)$")
"""888poker's and partypoker's seat line: ``Seat 1: NAME ( $970 )``."""
GAME_NO: Final = re.compile(r"^#Game No\s*:\s*(\d+)\s*$")
"""888poker's and partypoker's ``#Game No : N`` above a hand's banner."""
CASHOUT_STREETS: Final = {0: "preflop", 3: "flop", 4: "turn"}
"""The street a cash-out is taken on, by the board cards out then (none is left to deal after the river)."""
