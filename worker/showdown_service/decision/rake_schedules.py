"""Rake schedules as data: the JSON files a room's posted rake is written in, read and checked.

One file is one schedule (``format`` ``showdown.rake_schedule``,
``format_version`` 1; docs/rake.md documents every field and
``data/rake/rake-schedule.schema.json`` is its JSON Schema): a room or market,
a currency, the games, and versions by date, each with its mode and its
stakes. The shipped examples are package data under ``data/rake/``; the
``SHOWDOWN_RAKE_SCHEDULES_DIR`` setting names a directory of more
(``*.json``), read after them (an id given twice is refused).

A file that cannot be a schedule is refused when read
(:class:`ScheduleFileError`), naming the file, the line and the field:
overlapping dates, a cap table with a gap, a percentage over 100%, an
unknown mode.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Mapping
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final, NoReturn

from showdown_core.rake import (
    ATTRIBUTIONS,
    CAP_SPLITS,
    MODES,
    PPM,
    ROUNDINGS,
    Attribution,
    Cap,
    CapSplit,
    Mode,
    Schedule,
    Tier,
    Version,
)
from showdown_rules import MAX_CHIPS, VARIANT_SHAPES

FORMAT: Final = "showdown.rake_schedule"
FORMAT_VERSION: Final = 1
SHIPPED: Final = "data/rake"
"""Where the shipped schedules are, inside the ``showdown_service`` package."""
SCHEMA_FILE: Final = "rake-schedule.schema.json"

Path_ = tuple[str | int, ...]


class ScheduleFileError(ValueError):
    """A schedule file refused: ``file:line: field: why``."""

    def __init__(self, file: str, line: int, field: str, reason: str) -> None:
        super().__init__(f"{file}:{line}: {field or '(the file)'}: {reason}")
        self.file, self.line, self.field, self.reason = file, line, field, reason


def field_name(path: Path_) -> str:
    """``versions[0].stakes[1].caps[2].cap`` for ``("versions", 0, "stakes", 1, "caps", 2, "cap")``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def line_of(text: str, path: Path_) -> int:
    """The 1-based line where the value at ``path`` starts in the JSON ``text`` (its key's line for a field;
    the nearest enclosing value's when the path does not exist)."""
    position = _find(text, _skip(text, 0), path)
    return text.count("\n", 0, position) + 1


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


_DECODER: Final = json.JSONDecoder()


def _find(text: str, at: int, path: Path_) -> int:
    """Where ``path`` starts, walking the JSON from the value at ``at`` (a valid document)."""
    if not path:
        return at
    head, rest = path[0], path[1:]
    if text[at] == "{" and isinstance(head, str):
        at = _skip(text, at + 1)
        while text[at] != "}":
            key_at = at
            key, at = _DECODER.raw_decode(text, at)
            at = _skip(text, _skip(text, at) + 1)  # past the colon
            if key == head:
                return _find(text, at, rest) if rest else key_at
            _, at = _DECODER.raw_decode(text, at)
            at = _skip(text, at)
            if text[at] == ",":
                at = _skip(text, at + 1)
        return at
    if text[at] == "[" and isinstance(head, int):
        at = _skip(text, at + 1)
        index = 0
        while text[at] != "]":
            if index == head:
                return _find(text, at, rest)
            _, at = _DECODER.raw_decode(text, at)
            at = _skip(text, at)
            if text[at] == ",":
                at = _skip(text, at + 1)
            index += 1
        return at
    return at


class _Reader:
    """One file's document, read field by field; every refusal names the file, line and field."""

    def __init__(self, name: str, text: str) -> None:
        self.name, self.text = name, text
        try:
            self.doc = json.loads(text, parse_float=Decimal)
        except json.JSONDecodeError as exc:
            raise ScheduleFileError(name, exc.lineno, "", f"not JSON: {exc.msg}") from None

    def fail(self, path: Path_, reason: str) -> NoReturn:
        raise ScheduleFileError(self.name, line_of(self.text, path), field_name(path), reason)

    def get(self, obj: Mapping[str, Any], path: Path_, key: str, kinds: tuple[type, ...], *, default: Any = ...) -> Any:
        if key not in obj:
            if default is ...:
                self.fail(path, f"required field {key!r} is missing")
            return default
        value = obj[key]
        if value is None and default is None:
            return None
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join(k.__name__ for k in kinds)
            self.fail((*path, key), f"{value!r} is not {names}")
        return value

    def known(self, obj: Mapping[str, Any], path: Path_, allowed: Iterable[str]) -> None:
        for key in obj:
            if key not in allowed:
                self.fail((*path, key), f"unknown field {key!r} (the fields: {', '.join(sorted(allowed))})")

    def chips(self, obj: Mapping[str, Any], path: Path_, key: str, *, low: int = 0, default: Any = ...) -> Any:
        value = self.get(obj, path, key, (int,), default=default)
        if value is not None and value is not default and not low <= value <= MAX_CHIPS:
            self.fail((*path, key), f"{value} is not a whole number of minor units from {low} to {MAX_CHIPS}")
        return value

    def ppm(self, obj: Mapping[str, Any], path: Path_, key: str, most: Decimal, *, default: Any = ...) -> Any:
        """A percentage (``4.5`` for 4.5%) as whole parts per million, never more than ``most`` percent."""
        value = self.get(obj, path, key, (int, Decimal), default=default)
        if value is None or value is default:
            return value
        here = (*path, key)
        try:
            parts = Decimal(value) * PPM / 100
        except InvalidOperation:
            self.fail(here, f"{value} is not a percentage")
        if parts < 0:
            self.fail(here, f"{value}% is negative")
        if Decimal(value) > most:
            self.fail(here, f"{value}% is over {most}%")
        if parts != parts.to_integral_value():
            self.fail(here, f"{value}% has more than four decimals (rates are whole parts per million)")
        return int(parts)

    def day(self, obj: Mapping[str, Any], path: Path_, key: str, *, default: Any = ...) -> date | None:
        text = self.get(obj, path, key, (str,), default=default)
        if text is None:
            return None
        try:
            return date.fromisoformat(text)
        except ValueError:
            self.fail((*path, key), f"{text!r} is not a date (YYYY-MM-DD)")

    def choice(self, obj: Mapping[str, Any], path: Path_, key: str, choices: tuple[str, ...], default: str) -> str:
        value = self.get(obj, path, key, (str,), default=default)
        if value not in choices:
            self.fail((*path, key), f"{value!r} is not one of {', '.join(choices)}")
        return str(value)


_TOP: Final = ("$schema", "format", "format_version", "id", "room", "market", "currency", "games", "limits",
               "source", "quote", "versions")  # fmt: skip
_VERSION: Final = ("effective_from", "effective_to", "mode", "rounding", "multiplier_percent", "no_flop_no_drop",
                   "flop_or_preflop_3bet", "cap_split", "attribution", "stakes", "note")  # fmt: skip
_TIER: Final = ("small_blind", "big_blind", "percent", "per", "take", "drop", "caps")
_CAP: Final = ("players_from", "players_to", "cap")


def read_schedule(text: str, name: str) -> Schedule:
    """The schedule a file's ``text`` holds; :class:`ScheduleFileError` naming ``name``, the line and the field
    when it holds none."""
    r = _Reader(name, text)
    doc = r.doc
    if not isinstance(doc, dict):
        r.fail((), "a schedule file is one JSON object")
    r.known(doc, (), _TOP)
    if r.get(doc, (), "format", (str,)) != FORMAT:
        r.fail(("format",), f"is not {FORMAT!r}")
    if r.get(doc, (), "format_version", (int,)) != FORMAT_VERSION:
        r.fail(("format_version",), f"{doc['format_version']} is not a version this reads ({FORMAT_VERSION})")
    schedule_id = r.get(doc, (), "id", (str,))
    if not schedule_id or len(schedule_id) > 100 or not schedule_id.replace("-", "").replace("_", "").isalnum():
        r.fail(("id",), f"{schedule_id!r} is not an id (letters, digits, - and _; at most 100)")
    currency = r.get(doc, (), "currency", (str,))
    if not (len(currency) == 3 and currency.isalpha() and currency.isupper()):
        r.fail(("currency",), f"{currency!r} is not an ISO 4217 code (USD, EUR, ...)")
    games = r.get(doc, (), "games", (list,))
    for k, game in enumerate(games):
        if game not in VARIANT_SHAPES:
            r.fail(("games", k), f"{game!r} is not a game (one of {', '.join(VARIANT_SHAPES)})")
    if not games:
        r.fail(("games",), "names no game")
    limits = r.get(doc, (), "limits", (list,), default=[])
    raw_versions = r.get(doc, (), "versions", (list,))
    if not raw_versions:
        r.fail(("versions",), "holds no version")
    versions = [_version(r, v, ("versions", k)) for k, v in enumerate(raw_versions)]
    order = sorted(range(len(versions)), key=lambda k: versions[k].effective_from)
    for before, after in itertools.pairwise(order):
        first, then = versions[before], versions[after]
        if first.effective_to is None or first.effective_to > then.effective_from:
            r.fail(
                ("versions", after, "effective_from"),
                f"{then.effective_from} overlaps versions[{before}] ({first.effective_from} to "
                f"{first.effective_to or 'no end'}): one version a day",
            )
    return Schedule(
        schedule_id,
        r.get(doc, (), "room", (str,)),
        currency,
        tuple(games),
        tuple(versions[k] for k in order),
        market=r.get(doc, (), "market", (str,), default=""),
        limits=tuple(str(x) for x in limits),
    )


def _version(r: _Reader, v: Any, path: Path_) -> Version:
    if not isinstance(v, dict):
        r.fail(path, "a version is an object")
    r.known(v, path, _VERSION)
    start = r.day(v, path, "effective_from")
    end = r.day(v, path, "effective_to", default=None)
    assert start is not None
    if end is not None and end <= start:
        r.fail((*path, "effective_to"), f"{end} is not after effective_from {start}")
    mode: Mode = r.choice(v, path, "mode", MODES, "percentage")  # type: ignore[assignment]
    multiplier = r.ppm(v, path, "multiplier_percent", Decimal(1000), default=None)
    tiers_raw = r.get(v, path, "stakes", (list,), default=[])
    if mode in {"percentage", "incremental", "fixed_drop"} and not tiers_raw:
        r.fail((*path, "stakes"), f"a {mode} schedule posts its rake by stakes: none given")
    tiers = tuple(_tier(r, t, (*path, "stakes", k), mode, multiplier) for k, t in enumerate(tiers_raw))
    seen: dict[int | None, int] = {}
    for k, tier in enumerate(tiers):
        if tier.big_blind in seen:
            r.fail((*path, "stakes", k, "big_blind"), f"stakes[{seen[tier.big_blind]}] posts this big blind already")
        seen[tier.big_blind] = k
    return Version(
        start,
        end,
        mode,
        tiers,
        rounding=r.choice(v, path, "rounding", ROUNDINGS, "half_even"),  # type: ignore[arg-type]
        multiplier_ppm=multiplier,
        no_flop_no_drop=r.get(v, path, "no_flop_no_drop", (bool,), default=True),
        flop_or_preflop_3bet=r.get(v, path, "flop_or_preflop_3bet", (bool,), default=False),
        cap_split=_as_split(r.choice(v, path, "cap_split", CAP_SPLITS, "proportional")),
        attribution=_as_attribution(r.choice(v, path, "attribution", ATTRIBUTIONS, "weighted_contributed")),
    )


def _as_split(value: str) -> CapSplit:
    return "main_pot_first" if value == "main_pot_first" else "proportional"


def _as_attribution(value: str) -> Attribution:
    return "dealt" if value == "dealt" else ("contributed" if value == "contributed" else "weighted_contributed")


def _tier(r: _Reader, t: Any, path: Path_, mode: Mode, multiplier: int | None) -> Tier:
    if not isinstance(t, dict):
        r.fail(path, "a stakes row is an object")
    r.known(t, path, _TIER)
    big = r.chips(t, path, "big_blind", low=1, default=None)
    small = r.chips(t, path, "small_blind", low=1, default=None)
    rate = per = take = drop = 0
    if mode == "percentage":
        rate = r.ppm(t, path, "percent", Decimal(100))
        if multiplier is not None and rate * multiplier > PPM * PPM:
            r.fail((*path, "percent"), f"{Decimal(rate) / 10_000}% times the multiplier is over 100%")
    elif mode == "incremental":
        per, take = r.chips(t, path, "per", low=1), r.chips(t, path, "take", low=1)
        if take > per:
            r.fail((*path, "take"), f"{take} for each {per} in the pot is over 100%")
    elif mode == "fixed_drop":
        drop = r.chips(t, path, "drop", low=1)
    caps_raw = r.get(t, path, "caps", (list,), default=[])
    caps = tuple(_cap(r, c, (*path, "caps", k)) for k, c in enumerate(caps_raw))
    for k, cap in enumerate(caps):
        here = (*path, "caps", k, "players_from")
        if k == 0 and cap.players_from > 2:
            r.fail(here, f"the cap table starts at {cap.players_from} players: it has no cap for 2")
        if k and (caps[k - 1].players_to is None or cap.players_from != caps[k - 1].players_to + 1):  # type: ignore[operator]
            before = caps[k - 1]
            ends = "no end" if before.players_to is None else f"{before.players_to} players"
            r.fail(here, f"{cap.players_from} does not follow caps[{k - 1}] (up to {ends}): a gap or an overlap")
    if caps and caps[-1].players_to is not None:
        r.fail((*path, "caps", len(caps) - 1, "players_to"), "the last cap row has an end: give it none (and more)")
    return Tier(big, small, rate, per, take, drop, caps)


def _cap(r: _Reader, c: Any, path: Path_) -> Cap:
    if not isinstance(c, dict):
        r.fail(path, "a cap row is an object")
    r.known(c, path, _CAP)
    start = r.get(c, path, "players_from", (int,))
    end = r.get(c, path, "players_to", (int,), default=None)
    if not 1 <= start <= 10:
        r.fail((*path, "players_from"), f"{start} is not 1-10 players")
    if end is not None and not start <= end <= 10:
        r.fail((*path, "players_to"), f"{end} is not {start}-10 players")
    return Cap(start, end, r.chips(c, path, "cap"))


class Schedules(dict[str, Schedule]):
    """Every schedule known, by id, with the file each came from (``sources``)."""

    def __init__(self) -> None:
        super().__init__()
        self.sources: dict[str, str] = {}

    def add(self, schedule: Schedule, source: str, text: str) -> None:
        if schedule.id in self:
            raise ScheduleFileError(
                source, line_of(text, ("id",)), "id", f"{schedule.id!r} is given already by {self.sources[schedule.id]}"
            )
        self[schedule.id] = schedule
        self.sources[schedule.id] = source


def load_schedules(directory: Path | None = None) -> Schedules:
    """The shipped schedules, then every ``*.json`` of ``directory`` (sorted by name)."""
    found = Schedules()
    shipped = resources.files("showdown_service").joinpath(SHIPPED)
    for entry in sorted(shipped.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json") and entry.name != SCHEMA_FILE:
            text = entry.read_text(encoding="utf-8")
            found.add(read_schedule(text, f"{SHIPPED}/{entry.name}"), f"{SHIPPED}/{entry.name}", text)
    if directory is not None:
        if not directory.is_dir():
            raise ScheduleFileError(str(directory), 0, "", "is not a directory (SHOWDOWN_RAKE_SCHEDULES_DIR)")
        for path in sorted(directory.glob("*.json")):
            text = path.read_text(encoding="utf-8")
            found.add(read_schedule(text, str(path)), str(path), text)
    return found


@cache
def schedules_in(directory: Path | None) -> Schedules:
    """:func:`load_schedules`, read once a process per directory (the worker's, every replay's)."""
    return load_schedules(directory)


def schema_text() -> str:
    """The JSON Schema of a schedule file, as shipped."""
    return resources.files("showdown_service").joinpath(SHIPPED, SCHEMA_FILE).read_text(encoding="utf-8")
