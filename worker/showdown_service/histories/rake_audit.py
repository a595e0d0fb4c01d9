"""A replayed hand's rake against the room's posted schedule (``showdown replay --rake-schedule FILE|ID``).

Issue 38's audit: each real hand's stated rake is checked against what the
schedule (:mod:`showdown_core.rake`, by the same code as the worker's live
check, :mod:`showdown_service.decision.rake_live`) takes from the hand's
pots, the players dealt in, the stakes' big blind and whether the hand ended
in its first betting round. A hand is:

* ``as_posted``: the history's rake is the schedule's, to the unit;
* ``rake_mismatch``: it is not; the reason names the schedule, the pot, the
  expected and the stated amounts (both are in the report's ``rake_check``);
* ``not_covered``: the schedule says nothing of it (another currency, game or
  betting, a date before or after its versions, stakes it does not post, a
  tournament, a history without its stakes or date): never judged by a guess.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from showdown_core import InvalidEvent, build_pots
from showdown_core.rake import RakeError, Schedule, rake_hand
from showdown_service.decision.intake import to_showdown
from showdown_service.decision.rake_live import hand_of, mismatch
from showdown_service.histories.hands import HandRecord

AS_POSTED, RAKE_MISMATCH, NOT_COVERED = "as_posted", "rake_mismatch", "not_covered"
_WHO: Final = "the history"


class RakeCheck(NamedTuple):
    """One hand's rake against a schedule: a report line's ``rake_check``."""

    schedule: str
    status: str
    """``as_posted``, ``rake_mismatch`` or ``not_covered``."""
    stated: int
    """The rake the history states (the hand's units)."""
    expected: int | None
    """The schedule's rake; ``None`` when it does not cover the hand."""
    reason: str
    """Why it differs, or why the schedule does not cover it; ``""`` as posted."""

    def document(self) -> dict[str, Any]:
        """The report's JSON for it: every field, in order."""
        return self._asdict()

    @property
    def kind(self) -> str:
        """The summary's short reason for a hand not covered: the reason up to its first colon."""
        return self.reason.split(":", 1)[0]


def check_rake(record: HandRecord, schedule: Schedule) -> RakeCheck | None:
    """``record``'s stated rake against ``schedule``; ``None`` for a hand with no event (nothing settled)."""
    event = record.event
    if event is None:
        return None
    stated = event.rake

    def uncovered(reason: str) -> RakeCheck:
        return RakeCheck(schedule.id, NOT_COVERED, stated, None, reason)

    stakes = record.stakes
    if event.tournament_id is not None:
        return uncovered("a tournament hand: no rake per hand (a fee in the buy-in)")
    if record.currency_code != schedule.currency:
        return uncovered(
            f"another currency: {record.currency_code or 'none written'} (the schedule's: {schedule.currency})"
        )
    if event.variant not in schedule.games:
        return uncovered(f"another game: {event.variant} (the schedule's: {', '.join(schedule.games)})")
    if stakes is None or stakes.big_blind is None or stakes.played_on is None:
        return uncovered("no stakes or date: the history's header gives none read here")
    if schedule.limits and stakes.limit and stakes.limit not in schedule.limits:
        return uncovered(f"another betting: {stakes.limit} (the schedule's: {', '.join(schedule.limits)})")
    try:
        version = schedule.version_at(stakes.played_on)
    except RakeError as exc:
        return uncovered(f"another date: {exc}")
    try:
        showdown = to_showdown(event)
        pots, _ = build_pots(showdown.seats)
        hand = hand_of(showdown, tuple([p.amount for p in pots]), stakes.big_blind)
        raked = rake_hand(version, hand)
    except RakeError as exc:
        return uncovered(f"other stakes: {exc}")
    except InvalidEvent as exc:  # the settlement refuses it too, and says so: nothing to rake
        return uncovered(f"not settled: {exc}")
    if stated == raked.rake or (raked.alternative is not None and stated == raked.alternative):
        return RakeCheck(schedule.id, AS_POSTED, stated, stated, "")
    return RakeCheck(
        schedule.id, RAKE_MISMATCH, stated, raked.rake, mismatch(schedule.id, version, hand, raked, stated, who=_WHO)
    )
