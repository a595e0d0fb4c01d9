"""The errors showdown raises on purpose, rooted in one base class.

``InvalidEvent`` means "the input cannot be settled as sent: fix it and send
it again"; it is never retried. ``InvariantViolation`` means "our arithmetic
broke a rule it must never break": a bug, never the producer's fault.
"""

from __future__ import annotations

from collections.abc import Sequence

from showdown_rules.codes import Rejection

MESSAGES_SHOWN = 5
"""An InvalidEvent's message names at most this many reasons (a hostile payload can hold thousands)."""


class ShowdownError(Exception):
    """Root of every error showdown raises on purpose."""


class InvalidEvent(ShowdownError):
    """An event (or a set of cards) that cannot be settled as sent.

    ``rejections`` holds every reason found, most important first; ``code``,
    ``field`` and ``message`` repeat the first, which is the one a dead
    letter reports.
    """

    def __init__(self, rejections: Sequence[Rejection]) -> None:
        if not rejections:
            raise ValueError("InvalidEvent needs at least one rejection")
        self.rejections: tuple[Rejection, ...] = tuple(rejections)
        first = self.rejections[0]
        self.code: str = first.code
        self.field: str = first.field
        shown = "; ".join(r.message for r in self.rejections[:MESSAGES_SHOWN])
        more = len(self.rejections) - MESSAGES_SHOWN
        super().__init__(shown + (f"; and {more} more" if more > 0 else ""))

    @classmethod
    def of(cls, code: str, field: str, reason: str) -> InvalidEvent:
        """One rejection: ``InvalidEvent.of("bad_card", "cards[1]", "'1s' is not a card")``."""
        return cls([Rejection(code, field, f"{field}: {reason}" if field else reason)])

    @property
    def message(self) -> str:
        """All reasons, joined: what the producer has to fix."""
        return str(self)


class InvariantViolation(ShowdownError):
    """A settlement broke an accounting invariant (chips out != chips in). Always a bug."""
