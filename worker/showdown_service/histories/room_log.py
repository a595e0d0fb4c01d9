"""A builder-read hand's ``play`` (issue 36): 888poker's, WPN's, Full Tilt's, Winamax's and GGPoker's readers give
their :class:`~.builder.HandBuilder` a :class:`~.room_play.PlayLog` (:func:`log_play`), the builder logs the betting
in it as the reader tells it each line, and :func:`with_builder_play` gives the finished record its event's ``play``
through :func:`~.room_play.with_play`, the mechanism the PokerStars reader uses; the header's betting structure is
read by :func:`betting_limit`.

Beyond :func:`~.room_play.with_play`'s list, a hand is left without play, named, when its button's seat has no
player of the hand (a dead button: phh-std's last player is the button), when the big blind posted is not the
stakes' (their ``min_bet``), and when the play is no valid event (hostile text beyond the contract's limits: the
hand is read as before, never lost). A contested showdown's cards are written as phh-std writes them (``p2 sm
AhKd``), so that a PHH export carries them.
"""

from __future__ import annotations

import re
from typing import Final

from showdown_service.histories import room_play
from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import ReplayError
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.room_play import PlayLog

_NO_LIMIT: Final = re.compile(r"\bno[ -]?limit\b|\bNL(?:H|O|\b)", re.IGNORECASE)
_POT_LIMIT: Final = re.compile(r"\bpot[ -]?limit\b|\bPL(?:H|O|\b)", re.IGNORECASE)
_FIXED_LIMIT: Final = re.compile(r"\b(?:fixed |fix )?limit\b|\bFL\b", re.IGNORECASE)


def log_play(hand: HandBuilder) -> PlayLog:
    """``hand`` (nothing read yet) logs its betting from now on: the log."""
    log = hand.play_log = PlayLog()
    return log


def log_of(hand: HandBuilder) -> PlayLog:
    """The log :func:`log_play` gave ``hand``."""
    assert isinstance(hand.play_log, PlayLog), "log_play(hand) first"
    return hand.play_log


def betting_limit(words: str) -> str:
    """The betting structure a room's header names in ``words`` (``No Limit``, ``NL``, ``Pot Limit``, ``PL``,
    ``PLO``, ``Fix Limit``, ``FL``, ``Limit``), as :attr:`~.hands.Stakes.limit` writes it: ``no_limit``,
    ``pot_limit``, ``fixed_limit``; ``""`` when it names none (never guessed: such a hand gets no ``play``)."""
    for pattern, limit in ((_NO_LIMIT, "no_limit"), (_POT_LIMIT, "pot_limit"), (_FIXED_LIMIT, "fixed_limit")):
        if pattern.search(words):
            return limit
    return ""


def with_builder_play(read: HandRecord, hand: HandBuilder, limit: str, button: int | None) -> HandRecord:
    """``read`` (the record ``hand`` finished) with its event's ``play`` from ``hand``'s log, the stakes' big blind
    (:attr:`~.builder.HandBuilder.big_blind`) its ``min_bet``; or as it is when phh-std's ``play`` cannot say the
    hand here (the log's ``why_not`` says why)."""
    if read.event is None:
        return read
    log = log_of(hand)
    players = read.event.players
    if limit in ("no_limit", "pot_limit"):  # fixed limit's stakes are its bets, not its blinds
        if button is not None and button not in {p.seat for p in players}:
            log.refuse("a dead button (no player of the hand in the button's seat)")
        posted = log.blinds.get(log.big_blind or "")
        if posted is not None and hand.big_blind and posted != hand.big_blind:
            log.refuse("a big blind other than the stakes' (the header's)")
    showing = [p for p in players if not p.folded and p.hole_cards]
    if len(showing) > 1:
        log.actions += [(p.player_id, "sm " + "".join(p.hole_cards or ())) for p in showing]
    try:
        event = room_play.with_play(read.event, log, limit, hand.big_blind or None, button, read.source, read.line)
    except ReplayError:  # the play is no valid event (hostile text): the hand as it is, never lost
        log.refuse("the play is not a valid event (beyond the contract's limits)")
        return room_play.without_play(read, log)
    return room_play.without_play(read, log) if event is None else read._replace(event=event)
