"""Replay exported hand histories for audits: re-settle every hand, report every difference, audit tournaments.

Formats: PHH, PokerStars, GGPoker, 888poker, partypoker, Winamax, WPN (ACR, two clients),
iPoker (XML), Full Tilt, Bovada, Microgaming (XML), OnGame, Boss Media (XML), IGT (JSON),
Entraction, Merge Gaming (XML), PKR and Open Hand History, each one reader module exporting
its :class:`~.reader.Reader` (its own detection predicate, asked in :data:`~.run.REGISTERED`'s order by
:func:`~.run.detect`), sharing the games (:mod:`.games`), the
chips builder (:mod:`.builder`), the record (:mod:`.record`) and the
comparison (:mod:`.compare`); whole tournaments in :mod:`.tournaments`.

I/O shell around the core: the readers turn each hand into the same
:class:`~showdown_messages.ShowdownEvent` the worker settles, the worker's
own ``settle(to_showdown(event))`` settles it, and :mod:`.compare` says
whether the history's recorded payout follows the rules. See
``docs/replay.md``.
"""

from showdown_service.histories.acr import read_acr
from showdown_service.histories.compare import Verdict, judge
from showdown_service.histories.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    UnknownFormat,
    UnsupportedHand,
)
from showdown_service.histories.fulltilt import read_fulltilt
from showdown_service.histories.ggpoker import read_ggpoker
from showdown_service.histories.hands import HandRecord, PhhOutcome, StarsOutcome
from showdown_service.histories.ipoker import read_ipoker
from showdown_service.histories.ohh import read_ohh
from showdown_service.histories.pacific import read_pacific
from showdown_service.histories.partypoker import read_partypoker
from showdown_service.histories.phh import read_phh
from showdown_service.histories.pokerstars import read_pokerstars
from showdown_service.histories.run import READERS, detect, replay_file, replay_files
from showdown_service.histories.tournaments import TournamentAudit, audit_paths
from showdown_service.histories.winamax import read_winamax
from showdown_service.histories.wpn import read_wpn

__all__ = [
    "READERS",
    "ChipsDoNotAddUp",
    "HandRecord",
    "HandSyntaxError",
    "ImpossibleAction",
    "PhhOutcome",
    "ReplayError",
    "StarsOutcome",
    "TournamentAudit",
    "UnknownFormat",
    "UnsupportedHand",
    "Verdict",
    "audit_paths",
    "detect",
    "judge",
    "read_acr",
    "read_fulltilt",
    "read_ggpoker",
    "read_ipoker",
    "read_ohh",
    "read_pacific",
    "read_partypoker",
    "read_phh",
    "read_pokerstars",
    "read_winamax",
    "read_wpn",
    "replay_file",
    "replay_files",
]
