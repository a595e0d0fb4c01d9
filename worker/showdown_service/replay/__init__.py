"""Replay exported hand histories (PHH, PokerStars) for audits: re-settle every hand, report every difference.

I/O shell around the core: the readers turn each hand into the same
:class:`~showdown_messages.ShowdownEvent` the worker settles, the worker's
own ``settle(to_showdown(event))`` settles it, and :mod:`.compare` says
whether the history's recorded payout follows the rules. See
``docs/replay.md``.
"""

from showdown_service.replay.compare import Verdict, judge
from showdown_service.replay.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    UnknownFormat,
    UnsupportedHand,
)
from showdown_service.replay.hands import HandRecord, PhhOutcome, StarsOutcome
from showdown_service.replay.phh import read_phh
from showdown_service.replay.pokerstars import read_pokerstars
from showdown_service.replay.run import detect, replay_file, replay_files

__all__ = [
    "ChipsDoNotAddUp",
    "HandRecord",
    "HandSyntaxError",
    "ImpossibleAction",
    "PhhOutcome",
    "ReplayError",
    "StarsOutcome",
    "UnknownFormat",
    "UnsupportedHand",
    "Verdict",
    "detect",
    "judge",
    "read_phh",
    "read_pokerstars",
    "replay_file",
    "replay_files",
]
