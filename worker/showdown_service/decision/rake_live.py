"""An event's rake by its table's posted schedule: computed, or a stated one checked; who paid it.

An event naming ``rake_schedule`` (and its ``stakes``) is raked by that
schedule (:mod:`showdown_core.rake`) before it is settled:

* an id no worker knows, or a schedule that posts nothing for the hand's
  game, stakes or date, is refused ``unknown_rake_schedule`` (never settled
  with a guess); a tournament hand under a schedule that rakes per hand is
  refused ``tournament_rake``;
* without a stated ``rake`` the schedule's rake is taken; with one, it must
  equal the schedule's (``rake_mismatch``, naming the schedule, the pot, the
  expected and the stated amounts): a rake above the schedule is never paid;
* when the event cannot say whether the hand ended in its first betting
  round (an uncontested draw hand) the schedule's rake is 0, and a stated
  rake may be that 0 or what the schedule takes past the first round;
* the showdown then carries each pot's part (``rake_pots``) and what each
  seat paid by the schedule's method (``rake_paid``).

The schedule's version is the one in effect on ``occurred_at``'s UTC date;
without ``occurred_at``, its current one (no end date).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date
from typing import Final, NamedTuple

from showdown_core import InvalidEvent, Showdown, build_pots
from showdown_core.model import SeatHand, from_fields
from showdown_core.rake import (
    Attribution,
    Family,
    Hand,
    Raked,
    RakeError,
    Schedule,
    Tier,
    Version,
    attribute,
    ended_in_first_round,
    rake_hand,
    take,
    uncapped,
)
from showdown_messages import ShowdownEvent

_FIELD: Final = "rake_schedule"


def family_of(showdown: Showdown) -> Family:
    """How the game's first betting round ends: at the flop, fourth street or the draw."""
    shape = showdown.variant.shape
    return "board" if shape.board_cards else ("stud" if shape.odd_chip_by_card else "draw")


def hand_of(showdown: Showdown, amounts: tuple[int, ...], big_blind: int | None) -> Hand:
    """What a schedule reads of a showdown: its pots' ``amounts`` (uncalled bets returned), the players dealt in,
    the stakes and whether it ended in the first betting round."""
    seats = showdown.seats
    live = 0
    for s in seats:
        live += not s.folded
    return _hand(showdown, amounts, big_blind, live)


def _hand(showdown: Showdown, amounts: tuple[int, ...], big_blind: int | None, live: int) -> Hand:
    """:func:`hand_of` with its ``live`` seats counted."""
    seats = showdown.seats
    if live > 1:  # a contested showdown is past the first round in every game
        first: bool | None = False
    else:
        most = max([len(s.cards) for s in seats])
        first = ended_in_first_round(family_of(showdown), False, len(showdown.board), most)
    return Hand(amounts, len(seats), big_blind, first, None, showdown.tournament_id is not None)


def version_for(schedule: Schedule, event: ShowdownEvent) -> Version:
    """The schedule's version in effect when the hand ended; ``unknown_rake_schedule`` when none is, or the
    schedule does not rake the event's game."""
    if event.variant not in schedule.games:
        raise InvalidEvent.of(
            "unknown_rake_schedule",
            _FIELD,
            f"schedule {schedule.id!r} posts no rake for {event.variant} (its games: {', '.join(schedule.games)})",
        )
    day = event.occurred_at.astimezone(UTC).date() if event.occurred_at is not None else None
    try:
        return schedule.version_at(day)
    except RakeError as exc:
        raise InvalidEvent.of("unknown_rake_schedule", _FIELD, f"schedule {schedule.id!r}: {exc}") from None


class _Row(NamedTuple):
    """A schedule's version and stakes row for one game, day, big blind and number of players dealt in, with its
    rate, cap and attribution: kept between hands (the per-hand work is then the pot's arithmetic)."""

    schedule: Schedule
    version: Version
    tier: Tier | None
    """``None`` when the version takes nothing per hand, or the stakes are not posted (``rake_hand`` says why)."""
    rate: Callable[[int], int] | None
    cap: int | None
    """The tier's cap for the players dealt in (``None``: uncapped, or no tier)."""
    attribution: Attribution


_ROWS: Final[dict[tuple[str, str, date | None, int | None, int], _Row]] = {}
_MOST_ROWS: Final = 4096


def _row(schedule: Schedule, event: ShowdownEvent, big_blind: int | None, dealt_in: int) -> _Row:
    """The version and stakes row an event is raked by, found once per schedule, game, day, big blind and
    players dealt in."""
    occurred = event.occurred_at
    # an RFC 3339 "Z" (pydantic's TzInfo(0) equals UTC) is its own UTC date: no astimezone() made
    day = None if occurred is None else (occurred.date() if occurred.tzinfo == UTC else occurred.astimezone(UTC).date())
    key = (schedule.id, event.variant, day, big_blind, dealt_in)
    row = _ROWS.get(key)
    if row is not None and row.schedule is schedule:
        return row
    version = version_for(schedule, event)
    tier: Tier | None = None
    rate = None
    if version.mode not in {"time_collection", "tournament"}:
        try:
            tier = version.tier(big_blind)
        except RakeError:
            tier = None  # rake_hand raises it again, naming the stakes
        else:
            rate = uncapped(version, tier)
    if len(_ROWS) >= _MOST_ROWS:
        _ROWS.clear()
    cap = tier.cap_for(dealt_in) if tier is not None else None
    row = _ROWS[key] = _Row(schedule, version, tier, rate, cap, version.attribution)
    return row


def pots_of(seats: Sequence[SeatHand]) -> tuple[tuple[int, ...], dict[int, int], int]:
    """The pots' amounts (main pot first), the chips returned by seat and the live seats: the usual showdown
    (every live seat put in the most anyone did: one pot of every chip, nothing returned) in one pass over the
    seats, any other hand by :func:`showdown_core.build_pots` (the settlement's own pots, which it builds again)."""
    total = live = 0
    top = low = -1
    for s in seats:
        chips = s.contributed
        total += chips + s.dead_money
        if chips > top:  # noqa: PLR1730 - max() would be a call a seat
            top = chips
        if not s.folded:
            live += 1
            if low < 0 or chips < low:
                low = chips
    if live > 1 and low == top:
        return ((total,) if total else ()), {}, live
    pots, returned = build_pots(seats)
    return tuple([p.amount for p in pots]), {r.seat: r.amount for r in returned}, live


def apply_schedule(event: ShowdownEvent, showdown: Showdown, schedules: Mapping[str, Schedule]) -> Showdown:
    """``showdown`` raked by the event's ``rake_schedule`` (see the module's rules); InvalidEvent when refused."""
    schedule_id = event.rake_schedule
    assert schedule_id is not None
    schedule = schedules.get(schedule_id)
    if schedule is None:
        known = ", ".join(sorted(schedules)) or "none"
        raise InvalidEvent.of(
            "unknown_rake_schedule", _FIELD, f"{schedule_id!r} is no schedule this worker knows (it knows: {known})"
        )
    fields = event.__dict__  # a model's fields, read as a dict (no BaseModel.__getattr__ hook on a miss)
    stakes = fields["stakes"]
    big_blind = stakes.big_blind if stakes is not None else None
    seats = showdown.seats
    row = _row(schedule, event, big_blind, len(seats))
    rate = row.rate
    if rate is not None and showdown.tournament_id is None:
        # the usual showdown: one pot, nothing returned, contested (past the first round: raked), stakes posted;
        # what rake_hand and attribute give it (tests/decision/test_rake_live.py's property test), with no record built
        total = live = 0
        top = low = -1
        pairs = []
        for s in seats:
            chips = s.contributed + s.dead_money
            total += chips
            pairs.append((s.seat, chips))
            chips = s.contributed
            if chips > top:  # noqa: PLR1730 - max() would be a call a seat
                top = chips
            if not s.folded:
                live += 1
                if low < 0 or chips < low:
                    low = chips
        if live > 1 and low == top and total:
            rake = rate(total)
            cap = row.cap
            if cap is not None and rake > cap:
                rake = cap
            if "rake" not in event.__pydantic_fields_set__ or fields["rake"] == rake:
                paid = _paid_from_one_pot(rake, pairs, total, row.attribution)
                return _raked(showdown, rake, (rake,) if rake else (), paid, schedule_id)
    amounts, back, live = pots_of(seats)
    return _general(event, showdown, schedule_id, row, amounts, back, live)


def _paid_from_one_pot(
    rake: int, pairs: list[tuple[int, int]], total: int, method: Attribution
) -> tuple[tuple[int, int], ...]:
    """:func:`showdown_core.rake.attribute` of a hand whose ``total`` chips (> 0) are one pot with nothing
    returned: ``pairs`` is each seat's ``(seat, chips)``, ``total`` their sum (``weighted_contributed`` in one
    loop, no comprehension's function made)."""
    pairs.sort()
    if not rake or method != "weighted_contributed":
        return attribute(rake, pairs, method)
    paid = []
    left = rake
    for seat, chips in pairs:
        share = rake * chips // total
        left -= share
        paid.append((seat, share))
    if left:  # largest remainders first; a stable sort keeps ties in seat order (the lower seat first)
        remainders = [rake * chips % total for _, chips in pairs]
        for i in sorted(range(len(pairs)), key=remainders.__getitem__, reverse=True)[:left]:
            seat, share = paid[i]
            paid[i] = (seat, share + 1)
    return tuple(paid)


def _general(  # noqa: PLR0917 - apply_schedule's own values, passed on
    event: ShowdownEvent,
    showdown: Showdown,
    schedule_id: str,
    row: _Row,
    amounts: tuple[int, ...],
    back: dict[int, int],
    live: int,
) -> Showdown:
    """:func:`apply_schedule` of any hand: several pots, bets returned, the first round's rules, a stated rake
    checked, a tournament hand refused."""
    version = row.version
    big_blind = event.stakes.big_blind if event.stakes is not None else None
    hand = _hand(showdown, amounts, big_blind, live)
    try:
        if row.tier is None or row.rate is None or hand.tournament:
            raked = rake_hand(version, hand)
        else:
            raked = take(version, row.tier, row.rate, hand)
    except RakeError as exc:
        code = "tournament_rake" if hand.tournament else "unknown_rake_schedule"
        raise InvalidEvent.of(code, _FIELD, f"schedule {schedule_id!r}: {exc}") from None
    if "rake" in event.model_fields_set:
        raked = _checked(schedule_id, version, hand, raked, event.rake)
    rake = raked.rake
    # what each seat left in the pots: its chips less a bet returned to it
    if back:
        in_pots = [(s.seat, s.contributed + s.dead_money - back.get(s.seat, 0)) for s in showdown.seats]
    else:
        in_pots = [(s.seat, s.contributed + s.dead_money) for s in showdown.seats]
    paid = attribute(rake, in_pots, version.attribution)
    return _raked(showdown, rake, raked.by_pot if rake else (), paid, schedule_id)


def _raked(
    showdown: Showdown, rake: int, by_pot: tuple[int, ...], paid: tuple[tuple[int, int], ...], schedule_id: str
) -> Showdown:
    """``showdown._replace(rake=, rake_pots=, rake_paid=, rake_schedule=)``, without its keywords."""
    return from_fields(
        Showdown,
        (*showdown[:_RAKE], rake, *showdown[_RAKE + 1 : _POTS], by_pot, paid, schedule_id, *showdown[_POTS + 3 :]),
    )


_RAKE: Final = Showdown._fields.index("rake")
_POTS: Final = Showdown._fields.index("rake_pots")
"""Where a showdown's rake and its schedule's fields (``rake_pots``, ``rake_paid``, ``rake_schedule``) are."""
assert Showdown._fields[_POTS : _POTS + 3] == ("rake_pots", "rake_paid", "rake_schedule")


def _checked(schedule_id: str, version: Version, hand: Hand, raked: Raked, stated: int) -> Raked:
    """The stated rake, when the schedule takes it; ``rake_mismatch`` otherwise."""
    if stated == raked.rake:
        return raked
    if raked.alternative is not None and stated == raked.alternative:  # the first round unknown: past it
        return rake_hand(version, hand._replace(first_round=False, preflop_3bet=True))
    raise InvalidEvent.of("rake_mismatch", "rake", mismatch(schedule_id, version, hand, raked, stated, who="the event"))


def mismatch(schedule_id: str, version: Version, hand: Hand, raked: Raked, stated: int, *, who: str) -> str:
    """Why ``stated`` is not the schedule's rake: the schedule, the pot, the expected and the stated amounts (the
    live check's ``rake_mismatch``, and a replay's against a room's posted schedule; ``who`` states it)."""
    total = sum(hand.pots)
    cap = "uncapped" if raked.cap is None else f"cap {raked.cap}"
    either = "" if raked.alternative is None else f" (or {raked.alternative} had it gone past the first round)"
    why = (
        " (the hand ended in its first betting round: no flop, no drop)" if hand.first_round and not raked.rake else ""
    )
    return (
        f"schedule {schedule_id!r} (from {version.effective_from}) takes {raked.rake}{either} from the {total} "
        f"chips in the pots ({hand.dealt_in} dealt in, big blind {hand.big_blind}, {cap}){why}; {who} states "
        f"{stated}"
    )
