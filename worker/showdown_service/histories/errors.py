"""Replay's errors: a hand history that cannot be replayed, and exactly where.

Each is a :class:`~showdown_core.ShowdownError` naming the file, the hand
(when one was started) and the line, so a report of thousands of hands
says which one to open and where to look. A malformed hand is reported and
the replay goes on with the next.
"""

from __future__ import annotations

import sys
from typing import Final

from showdown_core import ShowdownError


class ReplayError(ShowdownError):
    """A hand (or file) that cannot be replayed.

    ``source`` is the file as given, ``hand`` the hand's id (``None`` before
    a hand began), ``line`` the 1-based line in the file (``None`` when the
    problem is the file as a whole), ``reason`` what is wrong.
    """

    kind = "malformed"
    """Short name for the summary table."""

    def __init__(self, source: str, hand: str | None, line: int | None, reason: str, game: str = "") -> None:
        self.source = source
        self.hand = hand
        self.line = line
        self.reason = reason
        self.game = game
        """The hand's game (``Omaha Hi/Lo``) when the reader got that far, else ``""``."""
        self.tournament: tuple[str, str] | None = None
        """``(site, tournament number)`` of a hand whose format writes its tournament apart from its header (Open
        Hand History's ``tournament_info``), when the reader read it before it stopped (:mod:`.unread`)."""
        where = source if line is None else f"{source}:{line}"
        super().__init__(f"{where}: {'hand ' + hand + ': ' if hand else ''}{reason}")


class HandSyntaxError(ReplayError):
    """Text that is not the format: a line or field the reader cannot parse."""

    kind = "bad syntax"


class ImpossibleAction(ReplayError):
    """An action the rules do not allow here: out of turn, by a folded player, more chips than the stack."""

    kind = "impossible action"


class ChipsDoNotAddUp(ReplayError):
    """The history's own numbers disagree: a total pot, a stack or a collected amount that cannot be."""

    kind = "chips do not add up"


class UnsupportedHand(ReplayError):
    """A well-formed hand of a game or feature the service does not settle (Split Hold'em, 6 Card Omaha Hi/Lo, ...)."""

    kind = "unsupported"


class UnknownFormat(ReplayError):
    """A file given by name that is neither a PHH nor a PokerStars hand history."""

    kind = "unknown format"


class UnreadableHand(ReplayError):
    """Text a reader did not foresee and could not read at all: a number of thousands of digits, a document nested
    thousands deep, a value of the wrong kind where a reader takes one for granted. The hand (or the file, when no
    hand had begun) is reported as malformed and the replay goes on with the next (:func:`unreadable`)."""


_QUOTED: Final = 200
"""Characters of an unforeseen error's own message a reason quotes (a hostile value may be megabytes long)."""


def unreadable(exc: Exception, source: str, hand: str | None, line: int | None, game: str = "") -> UnreadableHand:
    """``exc``, raised by a reader on hostile text, as the :class:`UnreadableHand` of that hand (``hand`` ``None``:
    the file) at ``line``, saying what it met."""
    if isinstance(exc, RecursionError):
        reason = "nested too deeply to read"
    elif isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        reason = f"a number of more than {sys.get_int_max_str_digits()} digits"
    else:
        said = str(exc)
        said = said if len(said) <= _QUOTED else said[:_QUOTED] + "..."
        reason = f"cannot be read ({type(exc).__name__}: {said})"
    return UnreadableHand(source, hand, line, reason, game)
