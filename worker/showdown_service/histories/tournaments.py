"""Whole tournaments from their hand histories and summaries: chips between hands, places, prizes, bounties.

``showdown replay --tournaments PATH...`` reads every hand of the paths,
groups the tournament hands by room and tournament id (across files and
tables) in hand order (the hand numbers: GGPoker's newest-first files come
out right), and audits each tournament beside the per-hand report:

* **chips between hands**: at each table, every player's starting stack
  equals their stack after the previous hand of that table (what they had,
  less what they put in, plus what the history says they collected). A
  player-side history sees one table: a player who was not in the previous
  hand of the table is not compared across the gap.
* **the ledger**: when the hands cover the tournament (its first hand seats
  every entrant the summary counts, or every table's first hand does:
  :func:`.continuity.entrants`; without a summary, one table from the first
  hand), the hands go through the service's own tournament ledger
  (:class:`~showdown_core.tournament.Book`: places from the busts,
  same-hand busts by starting stack, ties; prizes from the summary's
  payouts; bounties from the heads), and every place, prize and bounty the
  hands or the summary print is compared with it. Otherwise the tournament
  is ``incomplete``: the chips, the hands' own checks and the order of the
  printed places are still checked.
* **the summary** of the same room and tournament id (:mod:`.pairing`: never another room's of the same number;
  two that disagree are a difference naming both files) (PokerStars ``Tournament #N ... summary`` text, Full
  Tilt's, GGPoker's, ``.ots``): each row's
  place and prize against the ledger, each prize against the payout table it
  states (``(65%)`` of the prize pool) and the prizes against the prize pool.
* a hand the per-hand comparison finds wrong (a bounty to a player who
  folded, a pot to the wrong player) is a difference of its tournament too.
* a hand that could not be replayed, whose tournament its header still tells (:mod:`.unread`), is a gap: the
  tournament is taken through no ledger, and a hand the reader refused is an ``unread hand`` difference.
* **re-entries and rebuys after a bust** (:mod:`.entries`): a player out of chips who sits down again is the
  ledger's next entry (the summary's ``Ben [2]``); one who re-buys goes on as the same entry, with no place.
* **late registrations** (:mod:`.entries`): a player first seen after the first hand, with no bust before, at a
  table whose start the hands hold, is an entry registered before the hand they first play.
* **a partial view** (:mod:`.partial`): the same hand in two files is one hand; rebuys a room writes no line for
  (888poker) are taken from the chips; anonymous tables' players are not followed between hands; a table joined
  after its start, without a summary, takes no newcomer into a ledger; a bust's printed place is no better than one
  below the players left with chips at its table (docs/replay.md, A partial view).

Over 400 lines: the audit and its comparisons with the ledger and the summaries read as one story; the chips
between hands are in :mod:`.continuity`, the entries the hands add in :mod:`.entries`, the summaries' reading in
:mod:`.summaries`, their pairing with the hands in :mod:`.pairing`.

The report (``--tournament-report FILE``) is one JSON line per tournament:
``{"room", "tournament_id", "hands", "status", "places", "differences"}``
(see docs/replay.md, Whole tournaments).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import orjson

from showdown_core import InvalidEvent, InvariantViolation, settle
from showdown_messages.tournaments import (
    AnyTournamentMessage,
    EntryRegistered,
    RegistrationClosed,
    TournamentOpened,
)
from showdown_rules.limits import PPM
from showdown_service.decision.intake import to_showdown, to_tournament_message
from showdown_service.histories.compare import MATCH, MISMATCH, UNBALANCED, UNVERIFIABLE, Verdict, judge
from showdown_service.histories.continuity import (
    chip_differences,
    chips_messages,
    ended,
    entrants,
    number,
    table_starts,
    untold_bounty,
)
from showdown_service.histories.entries import Chains, LateBust, NewEntry, late_registrations, name, new_entries
from showdown_service.histories.errors import ReplayError
from showdown_service.histories.hands import HandRecord, Place
from showdown_service.histories.pairing import HANDS_ROOM, Key, pair, untold_room
from showdown_service.histories.partial import ANONYMOUS_ROOMS, one_copy, starting_stack, unwritten_rebuys
from showdown_service.histories.run import decode, find_files, read_file
from showdown_service.histories.summaries import PLACE_ONLY, Summary, SummaryRow, read_summary, summary_room
from showdown_service.histories.unread import Unread, unread

if TYPE_CHECKING:
    from showdown_core.tournament import Book
    from showdown_messages import PlayerIn, ShowdownEvent

INCOMPLETE: Final = "incomplete"
MOST_PLACES: Final[int] = next(
    rule.max_length for rule in TournamentOpened.model_fields["payouts"].metadata if hasattr(rule, "max_length")
)
"""The most places a payout table of the contract holds (100,000): with no field stated, a place printed beyond it
pays nothing in the table the ledger is given (one line ``finished the tournament in 50000000th place`` never makes a
table of fifty million places); the ledger's place for that player is compared with it."""
NOMINAL_PAYOUTS: Final = (1,)
"""The prize the ledger is opened with when neither a summary nor the hands say one (it refuses a tournament that
pays nothing): places do not depend on it, and the report gives no prize."""


class Difference(NamedTuple):
    """One thing the hands, the ledger and the summary do not agree on."""

    kind: str
    hand_id: str | None
    detail: str

    def document(self) -> dict[str, Any]:
        return {"kind": self.kind, "hand_id": self.hand_id, "detail": self.detail}


@dataclass
class TournamentAudit:
    """One tournament, audited: a line of the tournament report."""

    room: str
    tournament_id: str
    hands: int = 0
    complete: bool = False
    places: list[dict[str, Any]] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    """What was checked (for an incomplete tournament: what could be)."""
    site: str = ""
    """The site the hands (Open Hand History) or the summary (``.ots``) name, ``""`` for a room's own format."""

    @property
    def status(self) -> str:
        if self.differences:
            return MISMATCH
        return MATCH if self.complete else INCOMPLETE

    def differ(self, kind: str, hand_id: str | None, detail: str) -> None:
        """Record a difference."""
        self.differences.append(Difference(kind, hand_id, detail))

    def document(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "tournament_id": self.tournament_id,
            "hands": self.hands,
            "status": self.status,
            "places": self.places,
            "differences": [d.document() for d in self.differences],
            "checked": self.checked,
        } | ({"site": self.site} if self.site else {})

    def line(self) -> bytes:
        return orjson.dumps(self.document()) + b"\n"


def audit_paths(paths: Iterable[str]) -> list[TournamentAudit]:
    """Read every file under ``paths`` and audit each tournament found (with its summary when among them)."""
    files, _ = find_files(list(paths))
    hands: list[tuple[HandRecord, Verdict]] = []
    summaries: list[Summary] = []
    gaps: list[Unread] = []
    audits: list[TournamentAudit] = []
    for source in files:
        raw = Path(source).read_bytes()
        text = decode(raw)[0]
        summary = read_summary(text, source)
        if isinstance(summary, Summary):
            summaries.append(summary)
            continue
        if isinstance(summary, ReplayError):
            bad = TournamentAudit(HANDS_ROOM[summary_room(text)], "?")
            bad.differences.append(Difference("summary unreadable", None, str(summary)))
            audits.append(bad)
            continue
        _, records, _ = read_file(source)
        lines: list[str] | None = None
        for record in records:
            if isinstance(record, HandRecord) and record.event is not None:
                if record.event.tournament_id:
                    hands.append((record, judge(record)))
                continue
            lines = text.splitlines() if lines is None else lines
            if (gap := unread(record, lines)) is not None:
                gaps.append(gap)
    return audits + audit(hands, summaries, gaps)


def _hand_number(record: HandRecord) -> tuple[int, str]:
    return number(record.hand_id), record.hand_id


def audit(
    hands: Sequence[tuple[HandRecord, Verdict]], summaries: Iterable[Summary], gaps: Iterable[Unread] = ()
) -> list[TournamentAudit]:
    """Each tournament of ``hands`` audited, in the order of their rooms and ids, with the summary of the same room
    and id (:mod:`.pairing`) and its hands that could not be replayed (``gaps``); a summary with no hands of its room
    and id, on a line of its own."""
    groups: dict[Key, list[tuple[HandRecord, Verdict]]] = {}
    for record, verdict in hands:
        assert record.event is not None
        assert record.event.tournament_id is not None
        room = record.hand_id.partition(":")[0]
        groups.setdefault((room, record.site, record.event.tournament_id), []).append((record, verdict))
    missing: dict[Key, list[Unread]] = {}
    for gap in gaps:
        missing.setdefault(gap.key, []).append(gap)
    paired, conflicts = pair(summaries, set(groups) | set(missing))
    out = {}
    for key, group in groups.items():
        group.sort(key=lambda pair: _hand_number(pair[0]))
        out[key] = _audit_one(key, group, paired.get(key), missing.get(key, []))
    files = {key: [record.source for record, _ in group] for key, group in groups.items()}
    for key, summary in paired.items():
        if key not in out:
            out[key] = _summary_alone(summary, key, files)
    for key, unread_hands in missing.items():
        if key not in groups:  # not one hand of the tournament could be replayed
            _gaps(out.setdefault(key, _audit(key)), unread_hands)
    for conflict in conflicts:
        out.setdefault(conflict.key, _audit(conflict.key)).differ("summary conflict", None, conflict.detail())
    return [out[key] for key in sorted(out)]


def _audit(key: Key, hands: int = 0) -> TournamentAudit:
    room, site, tournament_id = key
    return TournamentAudit(room, tournament_id, hands, site=site)


def _summary_alone(summary: Summary, key: Key, files: dict[Key, list[str]]) -> TournamentAudit:
    """A summary whose tournament has no hands among the paths: its own checks only (never another room's hands);
    a difference when whose tournament it is cannot be told (:func:`.pairing.untold_room`)."""
    result = _audit(key)
    rooms = sorted({f"{room} ({site})" if site else room for room, site, number in files if number == key[2]})
    others = f" (the hands of {', '.join(rooms)} tournament {key[2]} are another room's)" if rooms else ""
    result.checked.append(f"no hands of this tournament among the paths{others}: the summary alone")
    if (untold := untold_room(summary, files)) is not None:
        result.differ("summary room", None, untold)
    _summary_finishes(summary, result)
    _summary_rows(summary, result)
    _summary_table(summary, result)
    return result


def _audit_one(
    key: Key, group: list[tuple[HandRecord, Verdict]], summary: Summary | None, gaps: list[Unread]
) -> TournamentAudit:
    group, copies = one_copy(group)
    result = _audit(key, len(group))
    for hand_id, detail in copies:
        result.differ("hand copies", hand_id, detail)
    for record, verdict in group:
        if verdict.status in {MISMATCH, UNBALANCED}:  # a payout, or the chips out not the chips in
            result.differ("hand", record.hand_id, verdict.reason)
    _gaps(result, gaps)
    first = group[0][0].event
    assert first is not None
    records, rebought = unwritten_rebuys([record for record, _ in group], starting_stack(group[0][0]))
    group = [(record, verdict) for record, (_, verdict) in zip(records, group, strict=True)]
    if rebought:
        result.checked.append(f"{rebought} rebuy(s) the room writes no line for: a player at or below the starting "
                              "stack who starts the table's next hand with one or two starting stacks more, or out "
                              "at another table")  # fmt: skip
    if key[0] in ANONYMOUS_ROOMS and len(group) > 1:
        _anonymous(group, result)
        return _summary_checks(summary, result)
    seated = entrants(records)
    start = _one({p.stack for p in seated})
    # a late registration is told where the hands hold every table's start, all with one stack (the one it brings)
    starts = table_starts(records) if start is not None else None
    new, restarts = new_entries(records, start)
    late, wrong = late_registrations(records, {p.player_id for p in seated}, start)
    reentries = sum(1 for n in new if n.kind == "re-entry")
    counted = len(late) if starts is not None else 0  # where the tables' starts are not all there, none is an entry
    # without a summary, one table covers the tournament when its first hand is the start (every seat one stack);
    # a table joined after its start, when no player sits down after the first hand (one first seen later came from
    # another table) and no hand prints a place beyond the entries the hands seat (a bigger field, elsewhere)
    field = len(seated) + reentries + len(late)
    printed = max((place.place for record in records for place in record.places), default=0)
    joined = start is None and (bool(late) or printed > field)
    complete = (summary is not None and summary.entries() == len(seated) + reentries + counted) or (
        summary is None and not joined and len({r.event.table_id for r in records if r.event}) == 1
    )
    if summary is None and start is None and printed > field:
        result.checked.append(f"a place {printed} printed: a field beyond the {field} entries the hands seat, whose "
                              "other tables the hands do not show")  # fmt: skip
    if late and (starts is None or not complete):
        result.checked.append(_late_untold(late, records, starts is None, summary, len(seated) + reentries))
        late, wrong = [], []
    new = sorted(new + late, key=lambda n: n.hand)
    _chips_between_hands(group, result, restarts + wrong, gaps)
    untold = untold_bounty([record for record, _ in group]) if _progressive(first) else ""
    if complete and all(v.status != UNVERIFIABLE for _, v in group) and not untold and not gaps:
        result.complete = _ledger(group, seated, new, summary, result)
    else:
        if untold:
            result.checked.append(untold)
        result.checked.append("the chips between hands; each hand; the order of the places printed")
        _printed_places(group, result)
    if not _knockout(first) and not any(record.bounties for record, _ in group):
        result.checked.append("no bounties: the hands give no bounty on the heads and write no knockout line")
    return _summary_checks(summary, result)


def _summary_checks(summary: Summary | None, result: TournamentAudit) -> TournamentAudit:
    """The summary's own checks (its finishes, rows, payout table and prize pool), when there is one; a partial
    summary's places the hands do not reach, said so."""
    if summary is not None:
        if summary.partial and not result.complete:
            field = f"a field of {summary.entries()}" if summary.entries() is not None else "a field not stated"
            result.checked += [f"line {row.line}: the summary's place {row.place} for {row.player} ({field}) is "
                               "beyond the hands: one player's tables, up to their bust; the busts at other tables "
                               "are not in them" for row in summary.rows if not row.playing]  # fmt: skip
        _summary_finishes(summary, result)
        _summary_rows(summary, result)
        _summary_table(summary, result)
    return result


def _anonymous(group: list[tuple[HandRecord, Verdict]], result: TournamentAudit) -> None:
    """A tournament of an anonymous room (:data:`.partial.ANONYMOUS_ROOMS`): its players cannot be followed from hand
    to hand, so neither the chips between hands nor the ledger; the order of the places printed still is."""
    result.checked.append("not the chips between hands nor the ledger: the room names each player by their position "
                          "in the hand (anonymous tables), so no player is followed from hand to hand")  # fmt: skip
    result.checked.append("each hand; the order of the places printed")
    _printed_places(group, result)


def _late_untold(
    late: list[NewEntry], records: list[HandRecord], untold: bool, summary: Summary | None, entries: int
) -> str:
    """Why the players first seen after the first hand (``late``) are not taken as late registrations: the tables'
    starts are not all among the hands, or the entries there start with different stacks (``untold``), or the hands
    with them do not seat the field the summary counts (or, over several tables, no summary counts it)."""
    names = ", ".join(f"{n.player} (hand {records[n.hand].hand_id})" for n in late[:3])
    more = f" and {len(late) - 3} more" if len(late) > 3 else ""
    if untold:
        why = "the hands do not hold every table's start (its first hand, every entry there with one stack)"
    elif summary is None:
        why = "the hands are of several tables and no summary counts the field"
    else:
        why = f"with them the hands seat {entries + len(late)} entries, not the {summary.entries()} the summary counts"
    return (
        f"not taken as late registrations: {names}{more}, first seen after the first hand with no bust before: {why}, "
        "and a late registration cannot be told from a player moved from a table the histories do not show"
    )


def _gaps(result: TournamentAudit, gaps: list[Unread]) -> None:
    """The tournament's hands that could not be replayed: each refused one an ``unread hand`` difference, each read
    but not settled as recorded a note; with any, the tournament is not taken through the ledger."""
    for gap in sorted(gaps, key=lambda g: (g.source, g.line)):
        if gap.refused:
            detail = f"{gap.where()}: not read ({gap.reason}): a gap in the tournament, taken through no ledger"
            result.differ("unread hand", gap.hand_id, detail)
        else:
            result.checked.append(f"hand {gap.hand_id} ({gap.where()}) is not settled as recorded: {gap.reason}")
    if gaps:
        result.checked.append(
            f"not through the ledger: {len(gaps)} hand(s) of the tournament not replayed (the chips between hands "
            "not compared across them)"
        )


def _one(values: set[int | None]) -> int | None:
    """The one value of ``values``, or ``None`` when there are several (or none)."""
    return next(iter(values)) if len(values) == 1 else None


def _chips_between_hands(
    group: list[tuple[HandRecord, Verdict]],
    result: TournamentAudit,
    restarts: list[tuple[str, str]],
    gaps: list[Unread],
) -> None:
    """The chips between hands at each table (never across a hand not replayed: ``gaps``), and every re-entry's
    starting stack (``restarts``: those that do not bring it, :func:`.entries.new_entries`)."""
    unread = {number(gap.hand_id) for gap in gaps}
    for hand_id, detail in sorted(chip_differences([r for r, _ in group], unread) + restarts, key=_by_hand):
        result.differ("chips", hand_id, detail)
    result.checked.append("the chips between hands at each table")


def _by_hand(difference: tuple[str, str]) -> int:
    return number(difference[0])


def _printed_places(group: list[tuple[HandRecord, Verdict]], result: TournamentAudit) -> None:
    """Without the whole tournament: printed places only ever get better, hand after hand; and a player out in a
    hand finished no better than one below every player left with chips at that table (the others still in the
    tournament, at tables the hands do not show, only make it worse); and the prizes they print never pay a lower
    place more than a higher one."""
    worst: tuple[int, str] | None = None
    prizes = sorted({(p.place, p.received) for r, _ in group for p in r.places if p.received is not None})
    if [prize for _, prize in prizes] != sorted((prize for _, prize in prizes), reverse=True):
        result.differ("payout table", None, f"the prizes the hands print by place {prizes} pay a lower place more")
    for record, _ in group:
        after = ended(record)
        left = sum(1 for chips in after.values() if chips > 0)
        for place in record.places:
            if after.get(place.player) == 0 and place.place <= left:
                result.differ(
                    "place",
                    record.hand_id,
                    f"the history places {place.player} {place.place}; out in this hand with {left} player(s) left "
                    f"with chips at the table, they finished no better than {left + 1}",
                )
            if place.won:
                continue
            if worst is not None and place.place > worst[0]:
                result.differ(
                    "place",
                    record.hand_id,
                    f"{place.player} finished {place.place} after a player finished {worst[0]} in hand {worst[1]}",
                )
            worst = (place.place, record.hand_id) if worst is None or place.place < worst[0] else worst
            result.places.append({"player": place.player, "place": place.place, "prize": place.received,
                                  "bounty": None})  # fmt: skip


def _ledger(
    group: list[tuple[HandRecord, Verdict]],
    seated: list[PlayerIn],
    new: list[NewEntry],
    summary: Summary | None,
    result: TournamentAudit,
) -> bool:
    """Replay the tournament through the service's ledger (``seated``: its entries, every table's; ``new``: the
    re-entries, rebuys after a bust and late registrations the hands add, registration held open until the last) and
    compare its places, prizes and bounties, entry by entry of the room (:mod:`.entries`)."""
    from showdown_core.tournament import Book  # noqa: PLC0415 - only a tournament audit needs the ledger

    first = group[0][0].event
    assert first is not None
    tournament_id = result.tournament_id
    knockout, progressive = _knockout(first), _progressive(first)
    stated = summary.entries() if summary is not None else None
    field = MOST_PLACES if stated is None else stated  # no payout placed beyond it: never a table of 50,000,000
    payouts = _payouts(summary, field) or _printed_payouts(group, field)
    if list(payouts) != sorted(payouts, reverse=True):
        result.differ("payout table", None, f"the prizes by place {list(payouts)} pay a lower place more")
        payouts = tuple(sorted(payouts, reverse=True))
    # the ledger takes no tournament without a prize: with none known, a nominal cent for 1st place (the places do
    # not depend on it; the report's prizes are then null); registration closes with the places the field at the
    # close has (the busts before it are placed below them: entries.late_places)
    table = payouts or NOMINAL_PAYOUTS
    book = Book()
    chains = Chains([p.player_id for p in seated])
    left = len(new)
    messages: list[AnyTournamentMessage] = [
        TournamentOpened(schema_version=1, tournament_id=tournament_id, type="open", payouts=table,
                         bounty_cash_ppm=first.bounty_cash_ppm if knockout else None),
        *(EntryRegistered(schema_version=1, tournament_id=tournament_id, type="entry", player_id=p.player_id,
                          entry=1, stack=p.stack or 1, bounty=p.bounty if knockout else None) for p in seated),
    ]  # fmt: skip
    if not _send(book, messages, None, result) or not (left or _close(book, tournament_id, table, result)):
        return False
    placements: list[dict[str, Any]] = []
    late: list[LateBust] = []
    bought: dict[tuple[str, int], int] = {}
    cash: dict[str, int] = {}
    """Bounty cash each player won by the rules, hand by hand (a winner's own bounty, paid at the end, apart)."""
    printed: dict[tuple[str, int], tuple[Place, str]] = {}
    skip = frozenset(n.purchase.line for n in new if n.purchase is not None)
    for k, (record, _) in enumerate(group):
        assert record.event is not None
        for before in (True, False):
            if not before:
                try:
                    settlement = settle(to_showdown(record.event))
                except (InvalidEvent, InvariantViolation) as exc:
                    result.differ("ledger", record.hand_id, f"the hand cannot be settled: {exc}")
                    return False
                applied = book.apply_hand(settlement, None, record.event.players[0].bounty is not None)
                if applied.refused is not None:
                    result.differ("ledger", record.hand_id, applied.refused.message)
                    return False
                placements += applied.placements
                stacks = {p.player_id: p.stack or 0 for p in record.event.players}
                late += [LateBust(k, (p["player_id"], p["entry"]), stacks[p["player_id"]], 0)
                         for p in applied.placements if p["place"] is None]  # fmt: skip
                players = {p.seat: p.player_id for p in record.event.players}
                for award in (applied.settlement or settlement).bounties:
                    for share in award.winners:
                        cash[players[share.seat]] = cash.get(players[share.seat], 0) + share.cash
                printed |= {chains.room_entry(p.player): (p, record.hand_id) for p in record.places}
            entering = [n for n in new if (n.hand, n.before_seats) == (k, before)]
            if entering:
                entries = [chains.entry(tournament_id, n, book, knockout=knockout, progressive=progressive)
                           for n in entering]  # fmt: skip
                if not _send(book, entries, record.hand_id, result):
                    return False
                left -= len(entering)
                if not left and not _close(book, tournament_id, table, result, placements):
                    return False
            purchases = list(chips_messages(tournament_id, record, bought, before_seats=before,
                                            progressive=progressive, entries=chains.ledger, skip=skip))  # fmt: skip
            if not _send(book, [m for _, m in purchases], record.hand_id, result, [line for line, _ in purchases]):
                return False
    ledger = book.ledgers[tournament_id]
    assert ledger is not None
    rows = chains.placed(ledger, placements, late, table)
    lines = _bounty_lines(group)
    for placed in rows:
        key = (placed["player_id"], placed["entry"])
        got, prize = placed["place"], placed["prize"]
        result.places.append({"player": name(key), "place": got, "prize": prize if payouts else None,
                              "bounty": placed["bounty_cash"] if knockout else None})  # fmt: skip
        if key in printed:
            place, hand_id = printed[key]
            if place.place != got:
                result.differ("place", hand_id, f"the history places {name(key)} {place.place}; the rules give {got}")
            if place.received is not None and payouts and place.received != prize:
                detail = f"the history pays {name(key)} {place.received}; the payouts give {prize}"
                result.differ("prize", hand_id, detail)
    for player in sorted(chains.ledger) if knockout else ():
        if lines.get(player, 0) != cash.get(player, 0):
            won = sum(e.bounty_cash for e in ledger.entries.values() if e.player_id == player)
            result.differ(
                "bounty",
                None,
                f"{player}'s bounty lines add up to {lines.get(player, 0)}; the rules pay {cash.get(player, 0)} for "
                f"knockouts ({won} in all, their own bounty included when they win)",
            )
    result.places.sort(key=lambda p: (p["place"] is None, p["place"] or 0, p["player"]))
    live = {chains.of[entry.key] for entry in ledger.live.values()}
    for row in summary.rows if summary is not None else ():
        _summary_row(row, rows, live, result, prizes=bool(payouts))
    result.checked.append("places, prizes and bounties through the tournament ledger")
    if new:
        kinds = sorted({_KINDS[n.kind] for n in new})
        result.checked.append(f"the {' and '.join(kinds)} as the ledger's entries (registration held open until the "
                              "last; the busts before it placed below the field at its close)")  # fmt: skip
    return bool(rows) and not ledger.live


_KINDS: Final = {"re-entry": "re-entries", "rebuy": "rebuys after a bust", "late registration": "late registrations"}


def _send(
    book: Book,
    messages: Sequence[AnyTournamentMessage],
    hand_id: str | None,
    result: TournamentAudit,
    lines: Sequence[int] = (),
) -> bool:
    """Apply ``messages`` (the contract's, as the core takes them); a refusal is a ``ledger`` difference."""
    for k, message in enumerate(messages):
        applied = book.apply_message(to_tournament_message(message))
        if applied.refused is not None:
            where = f"line {lines[k]}" if k < len(lines) else f"the ledger refuses the tournament's {message.type!r}"
            result.differ("ledger", hand_id, f"{where}: {applied.refused.message}")
            return False
    return True


def _close(
    book: Book,
    tournament_id: str,
    table: tuple[int, ...],
    result: TournamentAudit,
    placements: list[dict[str, Any]] | None = None,
) -> bool:
    """Registration closed, with the places the field in play has (a table paying more places is cut to them)."""
    ledger = book.ledgers[tournament_id]
    assert ledger is not None
    message = RegistrationClosed(schema_version=1, tournament_id=tournament_id, type="registration_closed",
                                 payouts=table[: max(1, len(ledger.live))])  # fmt: skip
    applied = book.apply_message(to_tournament_message(message))
    if applied.refused is not None:
        result.differ("ledger", None, f"the ledger refuses the tournament's 'registration_closed': "
                                      f"{applied.refused.message}")  # fmt: skip
        return False
    if placements is not None:
        placements += applied.placements
    return True


def _knockout(first: ShowdownEvent) -> bool:
    """Whether the tournament pays bounties the ledger can follow: its first hand gives the heads and the cash part."""
    return first.bounty_cash_ppm is not None and first.players[0].bounty is not None


def _progressive(first: ShowdownEvent) -> bool:
    """A knockout that pays part of a bounty in cash and adds the rest to the winner's head."""
    return _knockout(first) and (first.bounty_cash_ppm or 0) < PPM


def _payouts(summary: Summary | None, field: int) -> tuple[int, ...]:
    """The payouts the summary's rows pay, by place (ties: each tied row's prize, as paid), or ``()``; a row placed
    beyond the ``field`` (the entries the summary counts, else :data:`MOST_PLACES`) is no payout (the row is a
    difference of its own: :func:`_summary_rows`, :func:`_summary_row`)."""
    if summary is None or summary.partial:  # one player's rows (GGPoker's) are not the table
        return ()
    by_place: dict[int, int] = {}
    for row in summary.rows:
        if row.prize is not None and not row.playing and row.place <= field:
            by_place.setdefault(row.place, row.prize)
    if not by_place:
        return ()
    return tuple(by_place.get(place, 0) for place in range(1, max(by_place) + 1))


def _printed_payouts(group: list[tuple[HandRecord, Verdict]], field: int) -> tuple[int, ...]:
    """Without a summary: the payouts the hands print (``finished ... and received $5.60``, ``wins the tournament
    and receives $10.40``), by place, or ``()`` when they print none; a place beyond the ``field`` (the entries the
    summary counts, else :data:`MOST_PLACES`) is no payout (the ledger's place for that player is compared with
    it). Without a summary the hands of one table may print places of a bigger field: those up to
    :data:`MOST_PLACES` are kept."""
    by_place = {p.place: p.received for r, _ in group for p in r.places if p.received is not None and p.place <= field}
    if not by_place:
        return ()
    return tuple(by_place.get(place) or 0 for place in range(1, max(by_place) + 1))


def _bounty_lines(group: list[tuple[HandRecord, Verdict]]) -> dict[str, int]:
    """Cents each player won by the hands' bounty lines (a split bounty shared equally, the odd cent first)."""
    out: dict[str, int] = {}
    for record, _ in group:
        for line in record.bounties:
            share, odd = divmod(line.cents, len(line.winners))
            for i, winner in enumerate(line.winners):
                cash = line.cents if line.kind != "split knockout" else share + (i < odd)
                out[winner] = out.get(winner, 0) + cash
    return out


def _summary_row(
    row: SummaryRow,
    placements: list[dict[str, Any]],
    live: set[tuple[str, int]],
    result: TournamentAudit,
    *,
    prizes: bool,
) -> None:
    """A summary's row against the ledger's place (and prize, when the payouts are known: ``prizes``)."""
    who = name((row.player, row.entry))
    ours = next((p for p in placements if p["player_id"] == row.player and p["entry"] == row.entry), None)
    if row.playing:
        if ours is not None:
            result.differ(
                "summary place",
                None,
                f"line {row.line}: the summary has {who} still playing; the hands finish them {ours['place']}",
            )
        return
    if ours is None:
        why = "still playing" if (row.player, row.entry) in live else "never finishing"
        result.differ(
            "summary place",
            None,
            f"line {row.line}: the summary places {who} {row.place}; the hands leave them {why}",
        )
        return
    if ours["place"] != row.place:
        result.differ(
            "summary place",
            None,
            f"line {row.line}: the summary places {who} {row.place}; the hands give {ours['place']}",
        )
    if prizes and row.award != PLACE_ONLY and (row.prize or 0) != ours["prize"]:
        result.differ(
            "summary prize",
            None,
            f"line {row.line}: the summary pays {who} {row.prize or 0}; the rules give {ours['prize']}",
        )


def _summary_finishes(summary: Summary, result: TournamentAudit) -> None:
    """Full Tilt's ``NAME finished in Nth place`` line against the summary's own row for NAME."""
    for finish in summary.finishes:
        row = next((r for r in summary.rows if r.player == finish.player), None)
        if row is None or row.playing or row.place != finish.place:
            written = "no row" if row is None else "a row still playing" if row.playing else f"row {row.place}"
            result.differ(
                "summary place",
                None,
                f"line {finish.line}: the summary says {finish.player} finished {finish.place}; it gives them "
                f"{written}" + ("" if row is None else f" at line {row.line}"),
            )


def _summary_rows(summary: Summary, result: TournamentAudit) -> None:
    """Each row once, at a place the field has: a second row of one entry (``summary row``), or a finish outside 1
    to the entries the summary counts (``summary place``), is a difference, never a row passed over."""
    entries = summary.entries()
    first: dict[tuple[str, int], SummaryRow] = {}
    for row in summary.rows:
        who = name((row.player, row.entry))
        if (seen := first.setdefault((row.player, row.entry), row)) is not row:
            detail = f"line {row.line}: a second row of {who} (the first at line {seen.line})"
            result.differ("summary row", None, detail)
        if not row.playing and (row.place < 1 or (entries is not None and row.place > entries)):
            field = f"a field of {entries} entries" if entries is not None else "any field"
            detail = f"line {row.line}: the summary places {who} {row.place}, outside {field}"
            result.differ("summary place", None, detail)


def _summary_table(summary: Summary, result: TournamentAudit) -> None:
    """Each prize is its share of the pool (``(35%)``, to the cent); the prizes are the pool (unless a row pays
    what is no money: a ticket)."""
    if summary.pool is None:
        return
    if (field := summary.field()) is not None:
        if field[0] == "checked":
            result.checked.append(field[1])
        else:
            result.differ(field[0], None, field[1])
    if any(row.award for row in summary.rows):
        result.checked.append("not the prize pool: the summary's rows pay tickets or give no prizes")
        return
    if summary.partial:
        result.checked.append("not the prizes against the prize pool: the summary lists its own player's rows only")
        return
    paid = 0
    for row in summary.rows:
        paid += row.prize or 0
        if row.percent and row.prize is not None:
            share = round(summary.pool * float(row.percent) / 100)
            if abs(share - row.prize) > 1:
                result.differ(
                    "payout table",
                    None,
                    f"line {row.line}: {row.player}'s {row.prize} is not {row.percent}% of the pool {summary.pool}",
                )
    if all(not row.playing for row in summary.rows) and paid != summary.pool:
        result.differ("prize pool", None, f"the summary pays {paid} in all; its prize pool is {summary.pool}")
    result.checked.append("the summary's payout table and prize pool")
