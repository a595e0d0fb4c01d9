"""The replay's outputs: one JSON line per hand, and a summary table for people, followed by each mismatch
(its file and line, its hand, and what differs, each seat with its player's name).

Report line (``--report FILE``)::

    {"source": "...", "hand_id": "...", "game": "Omaha Hi/Lo", "variant": "omaha_hilo",
     "status": "match" | "mismatch" | "unverifiable" | "error" | "unbalanced",
     "reason": "...", "expected": {...}, "computed": {...}, "line": 12, "bounties": [...], "currency": "EUR",
     "rake_check": {"schedule": "...", "status": "as_posted" | "rake_mismatch" | "not_covered",
                    "stated": 202, "expected": 202, "reason": "..."}}

``expected`` is what the history recorded, ``computed`` what the rules give
(seats as strings, chips as whole numbers of the source's unit; a recorded
fraction stays a fraction). ``error`` marks a hand that could not be read;
its ``reason`` names the file, the line and what is wrong. ``currency`` is
the code of the currency the hand's chips are in (``USD``, ``chips`` in a
tournament; ``null`` when the history writes none): the summary gives the
rake per currency, never one sum across currencies.

``unbalanced`` marks a hand whose settlement's chips out (collected, rake,
the house's net from cash-outs) are not its chips in, to the unit: checked
on every hand settled, and the summary says for how many it held.
``rake_check`` is there with ``--rake-schedule``: the history's rake
(``stated``) against the schedule's (``expected``, ``null`` when the
schedule does not cover the hand; see :mod:`.rake_audit`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Final

import orjson

from showdown_service.histories.compare import (
    BY_PLAY,
    BY_READER,
    ERROR,
    MATCH,
    MISMATCH,
    UNBALANCED,
    UNVERIFIABLE,
    Verdict,
)
from showdown_service.histories.currency import CHIPS
from showdown_service.histories.rake_audit import AS_POSTED, NOT_COVERED, RAKE_MISMATCH

if TYPE_CHECKING:
    from showdown_service.histories.tournaments import TournamentAudit

MISMATCHES_LISTED = 100
"""Mismatches a summary lists one by one (the rest are counted): a replay of years stays readable."""


def report_line(verdict: Verdict) -> bytes:
    """One hand's JSON line, newline included."""
    return orjson.dumps(verdict.document()) + b"\n"


@dataclass
class Summary:
    """Running totals of a replay."""

    files: int = 0
    skipped: int = 0
    hands: int = 0
    showdowns: int = 0
    matches: int = 0
    rake: Counter[str] = field(default_factory=Counter)
    """The rake of the hands settled, per currency code (``""``: the history writes none): never added across."""
    mismatches: Counter[str] = field(default_factory=Counter)
    unverifiable: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    notes: Counter[str] = field(default_factory=Counter)
    games: dict[str, Counter[str]] = field(default_factory=dict)
    """Per game (``Razz``; ``unknown`` when a hand could not be read that far): hands by status."""
    encodings: Counter[str] = field(default_factory=Counter)
    """Files read in an encoding other than UTF-8, by encoding."""
    bounties: int = 0
    listed: list[Verdict] = field(default_factory=list)
    """The first :data:`MISMATCHES_LISTED` mismatches, in the order read: printed after the table."""
    balanced: int = 0
    """Hands settled whose chips out equal their chips in (every hand settled, unless ``unbalanced`` counts it)."""
    unbalanced: list[Verdict] = field(default_factory=list)
    """Hands whose chips out are not their chips in (listed after the table: there should be none)."""
    rake_schedule: str = ""
    """The schedule the hands' rake was checked against (``--rake-schedule``), ``""`` when none."""
    rake_checks: Counter[str] = field(default_factory=Counter)
    """Hands by their rake check's status (``as_posted``, ``rake_mismatch``, ``not_covered``)."""
    not_covered: Counter[str] = field(default_factory=Counter)
    """Hands the schedule does not cover, by why."""
    rake_mismatches: list[Verdict] = field(default_factory=list)
    """The first :data:`MISMATCHES_LISTED` hands raked otherwise than the schedule, listed after the table."""
    rake_mismatch_count: int = 0
    betting: Counter[str] = field(default_factory=Counter)
    """Hands with an event by how their betting was played (:attr:`.compare.Verdict.betting`): by their ``play``,
    by the reader, or why not."""

    def add_file(self, encoding: str) -> None:
        """Count one file read in ``encoding``."""
        self.files += 1
        if encoding and encoding != "UTF-8":
            self.encodings[encoding] += 1

    def add(self, verdict: Verdict) -> None:
        """Count one hand."""
        if verdict.status == ERROR and not verdict.hand_id:
            self.errors[verdict.kind] += 1  # a file, not a hand
            return
        self.hands += 1
        self.games.setdefault(verdict.game or "unknown", Counter())[verdict.status] += 1
        self.bounties += len(verdict.bounties)
        self.showdowns += verdict.contested
        self.balanced += verdict.balanced
        check = verdict.rake_check
        if check is not None:
            self.rake_schedule = check.schedule
            self.rake_checks[check.status] += 1
            if check.status == NOT_COVERED:
                self.not_covered[check.kind] += 1
            elif check.status == RAKE_MISMATCH:
                self.rake_mismatch_count += 1
                if len(self.rake_mismatches) < MISMATCHES_LISTED:
                    self.rake_mismatches.append(verdict)
        if verdict.variant:  # an event was built: its rake is counted, in its currency
            self.rake[verdict.currency] += verdict.rake
        if verdict.betting:
            self.betting[verdict.betting] += 1
        if verdict.status == MATCH:
            self.matches += 1
            if verdict.kind:
                self.notes[verdict.kind] += 1
        elif verdict.status == MISMATCH:
            self.mismatches[verdict.kind] += 1
            if len(self.listed) < MISMATCHES_LISTED:
                self.listed.append(verdict)
        elif verdict.status == UNVERIFIABLE:
            self.unverifiable[verdict.kind] += 1
        elif verdict.status == UNBALANCED:
            self.unbalanced.append(verdict)
        else:
            self.errors[verdict.kind] += 1

    @property
    def exit_status(self) -> int:
        """0 when no hand's recorded payout differs from the rules, every hand could be read, every hand settled
        put out the chips put in and (``--rake-schedule``) none was raked otherwise than posted; else 1."""
        return 1 if self.mismatches or self.errors or self.unbalanced or self.rake_mismatch_count else 0

    def write(self, out: IO[str]) -> None:
        """The summary table."""
        rows: list[tuple[str, str]] = [
            (
                "files read",
                f"{self.files}" + (f" ({self.skipped} not hand histories, skipped)" if self.skipped else ""),
            ),
        ]
        rows += [(f"  read as {encoding}", f"{n}") for encoding, n in sorted(self.encodings.items())]
        rows.append(("hands read", f"{self.hands}"))
        for game, counts in sorted(self.games.items(), key=lambda item: (-sum(item[1].values()), item[0])):
            detail = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
            rows.append((f"  {game}", f"{sum(counts.values())} ({detail})"))
        rows += [
            ("showdowns", f"{self.showdowns}"),
            ("matches", f"{self.matches}"),
        ]
        rows += [(f"  with a note: {kind}", f"{n}") for kind, n in sorted(self.notes.items())]
        for label, counts in (
            ("mismatches", self.mismatches),
            ("unverifiable", self.unverifiable),
            ("malformed (not replayed)", self.errors),
        ):
            rows.append((label, f"{sum(counts.values())}"))
            rows += [(f"  {kind}", f"{n}") for kind, n in sorted(counts.items())]
        rows.append(("money in = money out", f"held for {self.balanced} hands settled"))
        if self.unbalanced:
            rows.append(("unbalanced (money in != out)", f"{len(self.unbalanced)}"))
        betting_at = len(rows)
        rows += self._rake_rows()
        rows += self._schedule_rows()
        if self.bounties:
            rows.append(("knockout bounties read", f"{self.bounties} (each checked against the rules' award)"))
        width = max(len(label) for label, _ in rows)  # before the betting's rows: their reasons run long
        rows[betting_at:betting_at] = self._betting_rows()
        out.write("showdown replay\n")
        for label, value in rows:
            out.write(f"  {label.ljust(width)}  {value}\n")
        self._write_mismatches(out)
        self._write_listed(out)

    def _betting_rows(self) -> list[tuple[str, str]]:
        """The hands settled with their betting played by the state machine (by their event's ``play``, or by the
        PHH reader), and those without, by why (issue 36: a refusal is named, never silent)."""
        if not self.betting:
            return []
        counts = self.betting
        played = counts[BY_PLAY] + counts[BY_READER]
        rows = [("with the betting played", f"{played}")]
        rows += [(label, f"{counts[by]}") for by, label in _PLAYED_BY if counts[by]]
        without = sorted((why, n) for why, n in counts.items() if why not in (BY_PLAY, BY_READER))
        rows.append(("without the betting played", f"{sum(n for _, n in without)}"))
        rows += [(f"  without: {why}", f"{n}") for why, n in without]
        return rows

    def _schedule_rows(self) -> list[tuple[str, str]]:
        """With ``--rake-schedule``: the hands checked against it, by status (those not covered by why)."""
        if not self.rake_schedule:
            return []
        checked = sum(self.rake_checks.values())
        rows = [
            (f"rake by schedule {self.rake_schedule}", f"{checked} hands checked"),
            ("  as posted", f"{self.rake_checks[AS_POSTED]}"),
            ("  rake_mismatch", f"{self.rake_checks[RAKE_MISMATCH]}"),
            ("  not covered", f"{self.rake_checks[NOT_COVERED]}"),
        ]
        rows += [(f"    {kind}", f"{n}") for kind, n in sorted(self.not_covered.items())]
        return rows

    def _write_listed(self, out: IO[str]) -> None:
        """Each unbalanced hand, then each hand raked otherwise than the schedule posts (file:line, hand: why)."""
        for title, verdicts, reason in (
            ("unbalanced: money in != money out (file:line, hand: why)", self.unbalanced, _own_reason),
            (
                "rake mismatches (file:line, hand: what the schedule takes and what the history states)",
                self.rake_mismatches,
                _rake_reason,
            ),
        ):
            if not verdicts:
                continue
            out.write(f"{title}\n")
            for verdict in verdicts[:MISMATCHES_LISTED]:
                where = f"{verdict.source}:{verdict.line}" if verdict.line else verdict.source
                out.write(f"  {where}  hand {verdict.hand_id}: {reason(verdict)}\n")
        if self.rake_mismatch_count > len(self.rake_mismatches):
            more = self.rake_mismatch_count - len(self.rake_mismatches)
            out.write(f"  ... and {more} more: --report FILE lists every hand\n")

    def _rake_rows(self) -> list[tuple[str, str]]:
        """The rake total, one line per currency with its code: a replay over files in several currencies says so
        and adds none of them together."""
        if len(self.rake) <= 1:
            code, rake = next(iter(self.rake.items()), ("", 0))
            return [("rake total", f"{rake}{_in(code)}")]
        rows = [
            ("rake total", f"{len(self.rake)} currencies, each on its own line (mixed files: never added together)")
        ]
        rows += [
            (f"  {code or 'currency not written'}", f"{rake}{_in(code)}") for code, rake in sorted(self.rake.items())
        ]
        return rows

    def _write_mismatches(self, out: IO[str]) -> None:
        """Each mismatch listed: where it is (file:line), its hand, and what differs, seats with their players."""
        found = sum(self.mismatches.values())
        if not found:
            return
        out.write("mismatches (file:line, hand: what the history recorded and what the rules give)\n")
        for verdict in self.listed:
            where = f"{verdict.source}:{verdict.line}" if verdict.line else verdict.source
            out.write(f"  {where}  hand {verdict.hand_id}: {verdict.reason}\n")
        if found > len(self.listed):
            out.write(f"  ... and {found - len(self.listed)} more: --report FILE lists every hand\n")


_PLAYED_BY: Final = ((BY_PLAY, "  by its event's play"), (BY_READER, "  by the PHH reader"))


def _own_reason(verdict: Verdict) -> str:
    return verdict.reason


def _rake_reason(verdict: Verdict) -> str:
    return verdict.rake_check.reason if verdict.rake_check is not None else ""


MINOR_UNITS: Final = {"USD": "cents", "EUR": "cents", "GBP": "pence", "INR": "paise"}
"""The smallest unit of each currency whose code the readers give (ISO 4217: two decimals each)."""


def _in(code: str) -> str:
    """`` USD (cents)``: the code after an amount, with the unit it counts."""
    if code == CHIPS:
        return " chips"
    if not code:
        return " (the source's unit: its history writes no currency)"
    return f" {code} ({MINOR_UNITS.get(code, 'smallest units')})"


def write_tournaments(audits: list[TournamentAudit], out: IO[str]) -> None:
    """One line per tournament audited (its status, hands, places found), then each difference."""
    out.write("tournaments\n")
    if not audits:
        out.write("  none found among the --tournaments paths\n")
    for audit in audits:
        room = f"{audit.room} ({audit.site})" if audit.site else audit.room
        out.write(f"  {room} {audit.tournament_id}: {audit.status} ({audit.hands} hands, {len(audit.places)} places)\n")
        for difference in audit.differences[:MISMATCHES_LISTED]:
            where = f"hand {difference.hand_id}: " if difference.hand_id else ""
            out.write(f"    {difference.kind}: {where}{difference.detail}\n")
