"""Read Poker Hand History (PHH) files: one hand per ``.phh``, many under ``[1]``, ``[2]``... in a ``.phhs``.

Why over 400 lines: the PHH field reader, the cards of every game (dealt, shown, drawn) and the hand's record;
the errors of all three name the same file, line and action.

PHH is TOML. The reader plays each hand's ``actions`` through the core's
betting state machine (:class:`showdown_core.betting.Machine`: whose turn it
is, what a call or a ``cbr`` raise-to costs, when a street closes, the
minimum raise, the stacks), the one the worker judges an event's ``play``
with, and keeps the cards itself; it turns the result into the
:class:`~showdown_messages.ShowdownEvent` the worker settles:

* seats are the player numbers: 1 is the small blind, the highest number
  the button (heads-up: 1 is the big blind, 2 the button and small blind),
  so ``button_seat`` is the number of players;
* antes are dead money unless ``ante_trimming_status`` is true (then they
  count toward the seat's level), as pokerkit, the format's reference
  implementation, treats them;
* an uncalled bet is returned before the showdown, so ``contributed`` is
  what each seat left in the pots;
* a fold, and a muck at showdown (``pN sm`` without cards), is ``folded``;
* cards written ``????`` are unknown.

Every file is TOML, but parsing it with :mod:`tomllib` costs about three
times everything else the replay does per hand; the flat ``key = value``
lines PHH files are made of are parsed directly, and anything else (multi-line
arrays, comments, escapes, dates) goes to :mod:`tomllib`. Both give the same
values (a test checks it on every real hand). The files of one collection write
the same stakes, stacks, seats and actions again and again: a line or an
action met before is taken from a bounded cache (a list value copied, so each
hand owns its fields), and the usual cards are placed inline, the general path
kept for anything else and for every error.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, Final

from showdown_core.betting import BettingError, Hand, Machine, Played, card_run
from showdown_messages import SCHEMA_VERSION, ShowdownEvent
from showdown_rules.cards import SPELLINGS
from showdown_rules.variants import MAX_RUNS
from showdown_service.histories.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    UnsupportedHand,
    unreadable,
)
from showdown_service.histories.games import (
    BOARD_SIZE,
    HOLDEM,
    STUD_CARDS,
    STUD_STREETS,
    Game,
    phh_codes,
    phh_game,
)
from showdown_service.histories.hands import HandRecord, PhhOutcome, validated_event
from showdown_service.histories.reader import Head, Reader

MAX_PLAYERS: Final = 10

_HEADER = re.compile(r"\s*\[\s*([^\[\]\s]+)\s*\]\s*\Z")
_HEADER_LINE = re.compile(r"^[ \t]*\[[^\[\]\n=]+\][ \t]*$", re.M)
_KEY = re.compile(r"\s*([A-Za-z0-9_-]+)\s*=")
_ITEM = re.compile(r"""'([^'\n]*)'\s*(?:,\s*|\Z)|"([^"\\\n]*)"\s*(?:,\s*|\Z)""")
_INT = re.compile(r"[+-]?\d+\Z")
_DECIMAL = re.compile(r"[+-]?\d+\.\d+\Z")


class _NotFlat(Exception):
    """The fast parser met TOML it does not handle: hand the text to tomllib."""


def phh_hand_id(path: str) -> tuple[str, str]:
    """``(hand id base, table id)`` for a PHH file, from its path.

    The PHH dataset keeps hands under ``data/<collection>/...``; a copy may
    keep them under ``phh/<collection>/...``. The id is
    ``<collection>:data/<collection>/<rest>`` (``pluribus:data/pluribus/30/12.phh``),
    the same for a file however the replay was pointed at it. A file with
    no such folder above it is ``phh:<name>``.
    """
    folder, _, name = path.rpartition(os.sep)
    known = _FOLDERS.get(folder)
    if known is None:
        known = _FOLDERS[folder] = _folder_ids(folder)
        if len(_FOLDERS) > _FOLDERS_KEPT:
            _FOLDERS.clear()
    prefix, table, above = known
    if name and name != ".":
        if prefix and name not in ("phh", "data"):  # the usual file: <collection>:data/<collection>/.../<name>
            return prefix + name, table
        parts = [*above, name]
    else:
        parts = above
    last = len(parts) - 1
    while last >= 0 and parts[last] not in ("phh", "data"):
        last -= 1
    rest = parts[last + 1 :] if last >= 0 else parts[-1:]
    if len(rest) >= 2:
        return f"{rest[0]}:data/{'/'.join(rest)}", rest[0]
    return f"phh:{'/'.join(rest)}", "phh"


def _folder_ids(folder: str) -> tuple[str, str, list[str]]:
    """A folder's parts (PurePath(folder).parts, a tenth the time) and, when a file in it has a collection's id,
    that id up to the file's name and the collection (the table): ``("pluribus:data/pluribus/30/", "pluribus")``."""
    above = [part for part in folder.split(os.sep) if part and part != "."]
    last = len(above) - 1
    while last >= 0 and above[last] not in ("phh", "data"):
        last -= 1
    rest = above[last + 1 :]
    if last < 0 or not rest:
        return "", "", above
    return f"{rest[0]}:data/{'/'.join(rest)}/", rest[0], above


_FOLDERS: dict[str, tuple[str, str, list[str]]] = {}
"""Each folder met: :func:`_folder_ids` (its parts are never changed: a path's parts are a new list)."""
_FOLDERS_KEPT: Final = 4096


def read_phh(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a ``.phh``/``.phhs`` file's ``text``, read, or the error that stopped it.

    ``source`` is the file's path as given (it names the file in errors and
    decides the hand ids, see :func:`phh_hand_id`).
    """
    base, table = phh_hand_id(source)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    chunks: list[tuple[str | None, str, int]] = [(None, text, 0)]  # (header, text, lines before it)
    try:
        fields: dict[str, Any] | None = _flat_fields(text)  # the usual file: one hand, flat, so no [header] line
    except (_NotFlat, ValueError):  # ValueError: a number of thousands of digits, which the hand's own reading names
        fields = None
    if fields is None and _HEADER_LINE.search(text):
        lines = text.split("\n")
        chunks, start, header = [], 0, None
        for k, line in enumerate(lines):
            if line.lstrip().startswith("[") and (m := _HEADER.match(line)) and "=" not in line:
                if header is not None or any(x.strip() and not x.lstrip().startswith("#") for x in lines[start:k]):
                    chunks.append((header, "\n".join(lines[start:k]), start))
                start, header = k + 1, m.group(1)
        chunks.append((header, "\n".join(lines[start:]), start))
    for name, chunk, offset in chunks:
        hand_id = base if name is None else f"{base}#{name}"
        hand = None
        try:
            hand = _Hand(chunk, offset, source, hand_id, table, fields if name is None else None)
            yield hand.play()
        except ReplayError as exc:
            exc.game = exc.game or (hand.game_name if hand is not None else "")
            yield exc
        except Exception as exc:  # TOML the reader did not foresee (nested thousands deep...)
            yield unreadable(exc, source, hand_id, offset + 1, hand.game_name if hand is not None else "")


def _flat_fields(text: str) -> dict[str, Any]:
    """The fields of a hand written as flat ``key = value`` lines; :class:`_NotFlat` for any other TOML.

    One pass over the lines, no regular expression on the usual ones: a blank line or a comment is skipped, a
    ``key = value`` line (a bare key, a value on the line with no ``#``) is read, anything else is not flat.
    """
    fields: dict[str, Any] = {}
    known, seen = _KNOWN_KEYS.get, _LINES.get
    for line in text.split("\n"):
        hit = None if line.startswith("actions") else seen(line)  # a hand's own actions: not hashed for nothing
        if hit is not None:  # a line read before: the same key and value (a list copied: the hand's own)
            seen_key, read = hit
            if seen_key:  # else a blank line or a comment
                if seen_key in fields:
                    raise _NotFlat  # a repeated key: tomllib explains it
                fields[seen_key] = read.copy() if type(read) is list else read
            continue
        written, eq, value = line.partition("=")
        key = known(written)
        if key is None:
            bare = line.lstrip(" \t")
            if not bare or bare[0] == "#":
                _keep(line, ("", None))
                continue  # a blank line or a comment ('# a = b' too)
            key = written.strip(" \t")
            if not eq or not _BARE_KEY.match(key):
                raise _NotFlat  # a quoted or dotted key, a table header, a multi-line array...
        if "#" in value:
            raise _NotFlat  # a comment after the value, or a '#' in a string: tomllib reads it
        if key in fields:
            raise _NotFlat  # a repeated key: tomllib explains it
        value = value.lstrip(" \t").rstrip()
        read = fields[key] = _array(value) if value[:1] == "[" else _scalar(value)
        if key != "actions":  # a hand's own (the other lines repeat from hand to hand: the stakes, the seats...)
            _keep(line, (key, read.copy() if type(read) is list else read))
    return fields


def _keep(line: str, read: tuple[str, Any]) -> None:
    if len(_LINES) >= _LINES_KEPT:
        _LINES.clear()
    _LINES[line] = read


_LINES: dict[str, tuple[str, Any]] = {}
"""Lines read so far, as ``(key, value)`` (key ``""``: nothing to read): the files of one collection write the same
variant, stakes, stacks and players again and again, so most lines but ``actions`` were read in an earlier hand."""
_LINES_KEPT: Final = 16_384


_KNOWN_KEYS: Final = {
    f"{key} ": key
    for key in (
        *("variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks", "actions", "hand", "players"),
        *("finishing_stacks", "winnings", "table", "ante_trimming_status", "bring_in", "small_bet", "big_bet"),
        *("event", "year", "month", "day", "time", "time_zone", "city", "region", "country", "currency"),
    )
}
"""PHH's keys as a line usually writes them (``key = ...``): taken at once, no pattern matched."""
_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+\Z")


def _array(value: str) -> list[Any]:
    if value[-1:] != "]":
        raise _NotFlat
    inner = value[1:-1].strip()
    if not inner:
        return []
    if inner[0] == "'" and inner[-1] == "'":  # the usual case: 'a', 'b', 'c'
        simple = inner[1:-1].split("', '")
        if inner.count("'") == 2 * len(simple):  # no quote inside an item
            return simple
    if inner[0] in "'\"":
        items: list[Any] = []
        pos, end = 0, len(inner)
        match = _ITEM.match
        while pos < end:
            m = match(inner, pos)
            if m is None:
                raise _NotFlat
            items.append(m.group(1) if m.group(1) is not None else m.group(2))
            pos = m.end()
        return items
    parts = inner.split(",")
    if not parts[-1].strip():
        parts.pop()
    try:
        return list(map(int, parts))
    except ValueError:
        return [_scalar(part.strip()) for part in parts]


def _scalar(value: str) -> Any:
    if value[:1] == "'" and value[-1:] == "'" and len(value) >= 2 and "'" not in value[1:-1]:
        return value[1:-1]  # the usual text ('NT'), first: no number or boolean is quoted
    if (value.isdigit() and value.isascii()) or _INT.match(value):
        return int(value)
    if _DECIMAL.match(value):
        whole, _, fraction = value.partition(".")
        return int(whole) if not fraction.strip("0") else Fraction(value)
    if value == "true":
        return True
    if value == "false":
        return False
    if len(value) >= 2 and value[0] == value[-1] == "'" and "'" not in value[1:-1]:
        return value[1:-1]
    if len(value) >= 2 and value[0] == value[-1] == '"' and '"' not in value[1:-1] and "\\" not in value:
        return value[1:-1]
    raise _NotFlat


def _number(text: str) -> Fraction | float:
    """TOML floats, exactly: ``9950.5`` is ``Fraction(19901, 2)``; ``inf`` (an unknown stack) stays a float."""
    return float(text) if text.lstrip("+-") in ("inf", "nan") else Fraction(text)


def _toml_fields(text: str, source: str, hand_id: str, offset: int) -> dict[str, Any]:
    try:
        return tomllib.loads(text, parse_float=_number)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = offset + (int(found.group(1)) if found else 1)
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise HandSyntaxError(source, hand_id, line, f"not valid TOML: {reason}") from None


class _Hand:
    """One PHH hand being played: the betting state machine and what it collects for the event."""

    def __init__(  # noqa: PLR0917  # where the hand is, and its fields when the file's were read already
        self, text: str, offset: int, source: str, hand_id: str, table: str, fields: dict[str, Any] | None = None
    ) -> None:
        self.text = text
        self.offset = offset
        self.source = source
        self.hand_id = hand_id
        self.first_line = offset + 1
        if fields is not None:
            self.fields = fields
        else:
            try:
                self.fields = _flat_fields(text)
            except _NotFlat:
                self.fields = _toml_fields(text, source, hand_id, offset)
        self.table = str(self.fields.get("table", table))
        self.game = HOLDEM
        self.game_name = ""

    # -- errors, each naming its line (found only once there is an error) -------------

    def _line(self, key: str) -> int:
        for k, line in enumerate(self.text.split("\n")):
            m = _KEY.match(line)
            if m and m.group(1) == key:
                return self.offset + k + 1
        return self.first_line

    def _at(self, k: int) -> int:
        """The line of action ``k`` (actions may be written one per line)."""
        lines = self.text.split("\n")
        row = self._line("actions") - self.offset - 1
        actions = self.fields.get("actions")
        if not isinstance(actions, list):
            return row + self.offset + 1
        for action in actions[: k + 1]:
            quoted = (f"'{action}'", f'"{action}"')
            while row < len(lines) - 1 and not any(q in lines[row] for q in quoted):
                row += 1
        return row + self.offset + 1

    def _syntax(self, key: str, reason: str) -> HandSyntaxError:
        return HandSyntaxError(self.source, self.hand_id, self._line(key), reason)

    # -- fields ------------------------------------------------------------------------

    def _field(self, key: str, kind: type | tuple[type, ...], required: bool = True) -> Any:
        value = self.fields.get(key)
        if type(value) is kind:  # the usual case: exactly the type asked for (a bool only when asked for one)
            return value
        if key not in self.fields:
            if required:
                raise HandSyntaxError(
                    self.source, self.hand_id, self.first_line, f"the required field {key!r} is missing"
                )
            return None
        value = self.fields[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise self._syntax(key, f"{key} = {value!r} is not a {getattr(kind, '__name__', kind)}")
        return value

    def _chips_list(self, key: str, count: int | None, unknown: bool = False) -> list[Any]:
        values = self._field(key, list)
        if count is not None and len(values) != count:
            raise self._syntax(key, f"{key} has {len(values)} entries for {count} players")
        if set(map(type, values)) == _INTS and min(values) >= 0:  # the usual case, checked at C speed
            return list(values)
        out: list[Any] = []
        for k, v in enumerate(values):
            if unknown and isinstance(v, float) and math.isinf(v) and v > 0:
                out.append(None)
            elif isinstance(v, int) and not isinstance(v, bool) and v >= 0:
                out.append(v)
            elif isinstance(v, Fraction) and v >= 0 and v.denominator == 1:
                out.append(int(v))
            else:
                raise self._syntax(key, f"{key}[{k}] = {v} is not a whole, non-negative number of chips")
        return out

    def _recorded(self, key: str, count: int) -> dict[int, int | Fraction] | None:
        values = self.fields.get(key)
        if type(values) is list and len(values) == count and set(map(type, values)) <= _CHIP_TYPES:
            return dict(enumerate(values, start=1))  # the usual case: every value a number of chips
        values = self._field(key, list, required=False)
        if values is None:
            return None
        if len(values) != count:
            raise self._syntax(key, f"{key} has {len(values)} entries for {count} players")
        if set(map(type, values)) <= _CHIP_TYPES:  # the usual case: every value a number of chips
            return dict(enumerate(values, start=1))
        out: dict[int, int | Fraction] = {}
        for k, v in enumerate(values, start=1):
            if type(v) is not int and (isinstance(v, bool) or not isinstance(v, Fraction)):
                raise self._syntax(key, f"{key}[{k - 1}] = {v!r} is not a number of chips")
            out[k] = v
        return out

    # -- the hand ---------------------------------------------------------------------

    def play(self) -> HandRecord:
        # each field as the usual file writes it is taken at once (checked at C speed); anything else, and every
        # error, goes through the general reading (_field, _chips_list, _recorded)
        fields = self.fields
        code = fields.get("variant")
        if type(code) is not str:
            code = self._field("variant", str)
        game = phh_game(code)
        if game is None:
            raise UnsupportedHand(
                self.source,
                self.hand_id,
                self._line("variant"),
                f"variant {code!r} is not a game this reader settles ({phh_codes()})",
            )
        self.game, self.game_name = game, game.name
        stacks = fields.get("starting_stacks")
        if not (type(stacks) is list and stacks and set(map(type, stacks)) == _INTS and min(stacks) >= 0):
            stacks = self._chips_list("starting_stacks", None, unknown=True)
        n = len(stacks)
        if not 2 <= n <= MAX_PLAYERS:
            raise UnsupportedHand(
                self.source, self.hand_id, self._line("starting_stacks"), f"{n} players; a hand has 2 to {MAX_PLAYERS}"
            )
        antes = fields.get("antes")
        if not (type(antes) is list and len(antes) == n and set(map(type, antes)) == _INTS and min(antes) >= 0):
            antes = self._chips_list("antes", n)
        blinds: Any
        if game.stud:
            blinds = self._chips_list("blinds_or_straddles", n) if "blinds_or_straddles" in fields else [0] * n
            bring_in = self._field("bring_in", (int, Fraction))
            if bring_in != int(bring_in) or bring_in <= 0:
                raise self._syntax("bring_in", f"bring_in = {bring_in} is not a positive whole number of chips")
        else:
            blinds = fields.get("blinds_or_straddles")
            if not (type(blinds) is list and len(blinds) == n and set(map(type, blinds)) == _INTS and min(blinds) >= 0):
                blinds = self._chips_list("blinds_or_straddles", n)
            bring_in = 0
        actions = fields.get("actions")
        if type(actions) is not list:
            actions = self._field("actions", list)
        trimming = fields.get("ante_trimming_status", False)
        if type(trimming) is not bool:
            trimming = self._field("ante_trimming_status", bool)
        names = fields.get("players")
        if names is not None and (
            type(names) is not list
            or len(names) != n
            or (set(map(type, names)) != _STRS and not all(isinstance(x, str) for x in names))
        ):
            names = self._field("players", list)
            raise self._syntax("players", f"players must name each of the {n} players")
        finishing = self._recorded("finishing_stacks", n)
        winnings = self._recorded("winnings", n) if "winnings" in fields else None

        # phh-std requires the stakes the betting needs; a file without them is played at the big blind's
        # (min_bet and the small bet; the big bet twice it; in stud, twice the bring-in), as the reader always read it
        big_blind = max(blinds) or 2 * int(bring_in) or 1
        small_bet = self._stake("small_bet") or big_blind
        stakes = (
            int(bring_in),
            small_bet,
            self._stake("big_bet") or 2 * small_bet,
            self._stake("min_bet") or big_blind,
        )
        state = _Betting(self, game, code, stacks, antes, blinds, trimming, stakes)
        played = state.run(actions)
        return self._record(state, played, names, finishing, winnings)

    def _stake(self, key: str) -> int:
        """A stake the betting needs (``min_bet``; ``small_bet`` and ``big_bet`` in fixed limit), 0 when absent."""
        value = self.fields.get(key, 0)
        if type(value) is int and value >= 0:  # the usual case
            return value
        value = self._field(key, (int, Fraction))
        if value != int(value) or value < 0:
            raise self._syntax(key, f"{key} = {value} is not a whole, non-negative number of chips")
        return int(value)

    def _record(  # the hand played, and what the file records of it
        self,
        state: _Betting,
        played: Played,
        names: list[str] | None,
        finishing: dict[int, int | Fraction] | None,
        winnings: dict[int, int | Fraction] | None,
    ) -> HandRecord:
        n = state.n
        game = self.game

        def last() -> int:
            return self._at(state.actions - 1) if state.actions else self._line("actions")

        put = list(played.net_contributed)  # an uncalled bet goes back before the showdown
        folded = [out and street != "showdown" for out, street in zip(played.folded, played.folded_on, strict=True)]
        contested = folded.count(False) > 1
        in_showdown = [i for i, out in enumerate(folded) if not out] if contested else []
        boards = [list(board) for board in played.boards]
        unverifiable = ""
        if contested and game.board and min(map(len, boards)) < BOARD_SIZE:
            raise ImpossibleAction(
                self.source,
                self.hand_id,
                last(),
                f"{len(in_showdown)} players reach the showdown with only {len(boards[-1])} board cards dealt",
            )
        if contested and game.stud and any(len(state.hole[i]) < STUD_CARDS for i in in_showdown):
            short = min(len(state.hole[i]) for i in in_showdown)
            raise ImpossibleAction(
                self.source,
                self.hand_id,
                last(),
                f"{len(in_showdown)} players reach the showdown with only {short} of their {STUD_CARDS} cards dealt",
            )
        holes = state.known()
        if contested:
            showing = [i for i in in_showdown if played.folded_on[i] != "showdown"]  # not mucked
            unknown = [i + 1 for i in showing if holes[i] is None]
            if len(showing) > 1 and unknown:
                unverifiable = f"unknown cards at a contested showdown (seat {', '.join(map(str, unknown))})"

        stacks: list[int | None] = state.stacks if None not in state.stacks else [None] * n
        if finishing is not None and None not in stacks:
            before, after = sum(stacks), sum(finishing.values())  # type: ignore[arg-type]  # no None: checked above
            if before != after:
                raise ChipsDoNotAddUp(
                    self.source,
                    self.hand_id,
                    self._line("finishing_stacks"),
                    f"the finishing stacks total {_text(after)} chips but the starting stacks {before}",
                )
        if winnings is not None and sum(winnings.values()) != sum(put) + sum(played.dead_money):
            raise ChipsDoNotAddUp(
                self.source,
                self.hand_id,
                self._line("winnings"),
                f"the winnings total {_text(sum(winnings.values()))} chips "
                f"but the pots hold {sum(put) + sum(played.dead_money)}",
            )

        event = None
        if not unverifiable:
            event = self._event(state, played, names, put, stacks, boards, holes=holes)
        outcome = (
            _record_of(PhhOutcome, (finishing, winnings)) if finishing is not None or winnings is not None else None
        )
        code = self.fields.get("currency")  # PHH's optional ISO 4217 code; the chips' unit is unnamed without it
        rest = (*_REST[:_CODE], code, *_REST[_CODE + 1 :]) if type(code) is str else _REST
        return _record_of(
            HandRecord,
            (self.source, self.hand_id, self.first_line, event, outcome, unverifiable, contested, game.name, *rest),
        )

    def _event(  # noqa: PLR0917  # the hand played, and the event's parts made of it
        self,
        state: _Betting,
        played: Played,
        names: list[str] | None,
        put: list[int],
        stacks: list[int | None],
        boards: list[list[str]],
        *,
        holes: list[list[str] | None],
    ) -> ShowdownEvent:
        game = self.game
        out = played.folded  # folded or mucked
        players = [
            {
                "seat": seat,
                "player_id": player_id,
                "hole_cards": hole_cards,
                "contributed": contributed,
                "dead_money": dead_money,
                "folded": folded,
                "stack": stack,
            }
            for seat, player_id, hole_cards, contributed, dead_money, folded, stack in zip(
                range(1, state.n + 1),
                names or _LABELS[state.n],
                holes,
                put,
                played.dead_money,
                out,
                stacks,
                strict=True,
            )
        ]
        doc: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "hand_id": self.hand_id,
            "table_id": self.table,
            "variant": game.variant,
            "button_seat": None if game.stud else state.n,
            "players": players,
        }
        if len(boards) > 1:
            doc["boards"] = boards
        else:
            doc["board"] = boards[0]
        return validated_event(doc, self.source, self.hand_id, lambda: self._line("actions"))


def _spelled(cards: list[str | None]) -> str:
    return "".join(card or "??" for card in cards)


def _text(amount: int | Fraction) -> str:
    return str(amount) if isinstance(amount, int) or amount.denominator == 1 else str(float(amount))


class _Betting:
    """A PHH hand's actions played: the betting by the core's state machine (:class:`showdown_core.betting.Machine`,
    the one the worker judges an event's ``play`` with), the cards here (indices are player number - 1).

    The machine decides whose turn it is, what each action costs, when a street closes, the uncalled bet, the folds
    and the boards (each further run of them); this class keeps what the betting does not: each card dealt once and
    from the game's deck, each seat's own cards as dealt, shown and drawn, a stud street's cards dealt before its
    betting, a draw's replacements. Each action goes to the machine first, then to the cards; a rule the machine
    refuses is named as the file's action and line (:meth:`_refused`).
    """

    # Rarely changed from their defaults (set on the instance when they are): kept off __init__, the hot path.
    unknown_dealt = False
    """Some own card was dealt unknown (``??``)."""
    street = 0
    """Stud: the street whose cards were dealt last (0 is 3rd street)."""
    owed: list[int] = []  # noqa: RUF012  # replaced by the first draw
    """Draw games: the cards each seat discarded and is still to be dealt."""

    def __init__(  # noqa: PLR0917  # the hand's forced bets and stakes, as the file gives them
        self,
        hand: _Hand,
        game: Game,
        code: str,
        stacks: list[int | None],
        antes: list[int],
        blinds: list[int],
        trimming: bool,
        stakes: tuple[int, int, int, int],
    ) -> None:
        n = self.n = len(stacks)
        self.hand = hand
        self.game = game
        self.fast_deal = game is HOLDEM  # 'd dh pN AsKd', the replay's hot path
        self.fast_own = not (game is HOLDEM or game.draw or game.missing_ranks)  # Omaha's and stud's own cards
        self.stacks = stacks
        self.hole: list[list[str | None]] = [_NOTHING] * n  # replaced, never changed in place
        """Per seat: its own cards as dealt (``None`` for one written ``??``), a draw game's as they stand."""
        self.dealt_at: list[int | None] = [None] * n
        """Per seat: the action that dealt its hole cards (board games: a second deal is an error)."""
        self.opening = game.stud
        """Stud: the street's cards were dealt and nobody has acted on it yet."""
        self.actions = 0
        self.card_at: dict[str, int] = {}
        bring_in, small_bet, big_bet, min_bet = stakes
        try:
            self.machine = Machine(
                Hand(
                    code,
                    tuple(_UNLIMITED if s is None else s for s in stacks),
                    (),
                    tuple(antes),
                    tuple(blinds),
                    bring_in,
                    small_bet,
                    big_bet,
                    min_bet,
                    trimming,
                ),
                (),
            )
        except BettingError as exc:  # the declared forced bets or stakes: named at their field's line
            key = exc.rejections[0].field.removeprefix("play.")
            raise hand._syntax(key, exc.reason) from None

    def _refused(self, exc: BettingError, action: str) -> ReplayError:
        """The machine's refusal as the file's: the action, its line, why (grammar: a syntax error)."""
        k = exc.index if exc.index is not None else self.actions
        return self._error(HandSyntaxError if exc.rule == "bad_action" else ImpossibleAction, k, action, exc.reason)

    def finish(self, count: int) -> Played:
        """What the betting of the hand's ``count`` actions leaves; the hand cut short is refused at its last."""
        hand = self.hand
        reason = ""
        machine = self.machine
        try:
            played = machine.finish(count)
        except BettingError as exc:
            reason = exc.reason
        else:
            if not (self.opening and machine.able > 1 and machine.live > 1):
                return played
            reason = "the actions end before anybody acts on this street"
        last = hand._at(count - 1) if count else hand._line("actions")  # found only once there is an error
        raise ImpossibleAction(hand.source, hand.hand_id, last, reason, hand.game_name)

    def known(self) -> list[list[str] | None]:
        """Each seat's own cards when all of them are dealt and known, else ``None``."""
        if self.fast_deal and not self.unknown_dealt:  # hold'em dealt in the open: two known cards or none
            return [cards or None for cards in self.hole]  # type: ignore[misc]
        counts = self.game.counts
        return [cards if len(cards) in counts and None not in cards else None for cards in self.hole]  # type: ignore[misc]

    def _error(self, kind: type[ReplayError], k: int, action: str, reason: str) -> ReplayError:
        hand = self.hand
        return kind(hand.source, hand.hand_id, hand._at(k), f"action {k + 1} {action!r}: {reason}", hand.game_name)

    def _cards(self, text: str, k: int, action: str) -> list[str | None]:
        try:
            return card_run(text)
        except ValueError as exc:
            raise self._error(HandSyntaxError, k, action, str(exc)) from None

    def _place(self, cards: list[str | None], k: int, action: str) -> None:
        card_at, missing = self.card_at, self.game.missing_ranks
        for card in cards:
            if card is None:
                continue
            if card[0] in missing:
                raise self._error(ImpossibleAction, k, action, f"{card} is not in the {self.game.name} deck")
            first = card_at.setdefault(card, k)
            if first != k:
                raise self._error(ImpossibleAction, k, action, f"{card} was already dealt (action {first + 1})")

    def run(self, actions: list[Any]) -> Played:
        """Play every action: the machine first (:meth:`Machine.act`), then the cards. The usual cards (hold'em hole
        cards and board, Omaha's and stud's own cards, a hold'em show) are placed inline: this loop is the replay's
        hot path; anything else, and any of them that breaks a rule (for the error), goes through :meth:`act`.
        Each action's words are read once per text (:func:`_step`)."""
        hole, card_at, dealt_at, n = self.hole, self.card_at, self.dealt_at, self.n
        fast_deal, fast_own, stud = self.fast_deal, self.fast_own, self.game.stud
        play = self.machine.act
        known = _STEPS.get
        for k, action in enumerate(actions):
            if type(action) is not str:
                hand = self.hand
                raise HandSyntaxError(hand.source, hand.hand_id, hand._at(k), f"action {action!r} is not text")
            kind, i, first, second = known(action) or _step(action)
            if kind is _DEAL:  # hold'em hole cards: nothing the betting keeps (the machine's record of cards unused)
                if fast_deal and i < n and dealt_at[i] is None and first not in card_at and second not in card_at:
                    card_at[first] = card_at[second] = dealt_at[i] = k
                    hole[i] = [first, second]
                    continue
            elif stud and kind is not _OWN and kind is not _SHOW:
                self._stud_turn(action, k)
            try:
                play(k, action)
            except BettingError as exc:
                raise self._refused(exc, action) from None
            if kind is _FOLD or kind is _CALL or kind is _RAISE:
                continue
            if kind is _OWN:  # Omaha's own cards, or a stud seat's cards of the street being dealt
                if fast_own and i < n and self._dealt_own(i, first, k):
                    continue
            elif kind is _SHOW:  # 'pN sm' (a muck) or 'pN sm CARDS': the seat's own two cards, in any order
                if fast_deal:  # the machine let the seat show (in the hand, nobody still to act)
                    if first is None:
                        continue
                    held = hole[i]
                    if len(held) == 2 and first in held and second in held:  # both known: nothing new is placed
                        hole[i] = [first, second]
                        continue
            elif kind is _BOARD and fast_deal and self._dealt_board(first, k):
                continue
            self.act(action, k)
        self.actions = len(actions)
        return self.finish(len(actions))

    def _stud_turn(self, action: str, k: int) -> None:
        """Stud: a street's betting comes after its cards. A bet (``f``, ``cc``, ``cbr``, ``pb``) made once the
        street's betting closed and no card of the next one was dealt is made where no betting is open."""
        words = action.split()
        if len(words) < 2 or words[1] not in _BETS or (i := _PLAYER.get(words[0])) is None:
            return  # a deal, a show, or no action at all (the machine names it)
        machine = self.machine
        if self.opening:
            self.opening = False
        elif machine.to_act is None and machine.live > 1 and machine.able > 1 and not machine.folded[i]:
            raise self._error(ImpossibleAction, k, action, f"p{i + 1} acts but no betting is open")

    def _dealt_own(self, i: int, first: Any, k: int) -> bool:
        """:meth:`run`'s quick path for a seat's own cards (Omaha's, or a stud street's): True if placed, False to
        let :meth:`act` place them (and name what is wrong with them)."""
        card_at, hole = self.card_at, self.hole
        if any(card in card_at for card in first):
            return False
        held = hole[i]
        if self.game.stud:
            if self.machine.folded[i] or len(held) + len(first) > _STUD_DEALT[self.street]:
                return False
            for card in first:
                card_at[card] = k
            hole[i] = [*held, *first]
            return True
        if self.dealt_at[i] is not None or not (len(first) == self.game.cards or len(first) in self.game.counts):
            return False
        for card in first:
            card_at[card] = k
        self.dealt_at[i] = k
        hole[i] = list(first)
        return True

    def _dealt_board(self, first: Any, k: int) -> bool:
        """:meth:`run`'s quick path for board cards the machine dealt: True if placed."""
        if any(card in self.card_at for card in first) or len(self.machine.runs) > MAX_RUNS:
            return False
        for card in first:
            self.card_at[card] = k
        return True

    def act(self, action: str, k: int) -> None:
        """The cards of an action the machine played (a deal, a show, a draw); a bet has none."""
        self.actions = k + 1
        words = (action.split("#", 1)[0] if "#" in action else action).split()
        if words[0] == "d":
            self._deal(words, k, action)
            return
        i = _PLAYER[words[0]]  # the machine checked the player
        verb = words[1]
        if verb == "sm":
            self._show(i, words[2:], k, action)
        elif verb == "sd":
            self._draw(i, words[2:], k, action)

    def _deal(self, words: list[str], k: int, action: str) -> None:
        if words[1] != "dh":  # 'd db': the machine dealt the board (its street, its size, each run)
            if len(self.machine.runs) > MAX_RUNS:
                raise self._error(
                    UnsupportedHand,
                    k,
                    action,
                    f"a board run more than {MAX_RUNS} times; the contract takes 2 or 3 runs",
                )
            self._place(self._cards(words[2], k, action), k, action)
            return
        i = _PLAYER[words[2]]
        cards = self._cards(words[3], k, action)
        if None in cards:
            self.unknown_dealt = True
        game = self.game
        if game.stud:
            self._deal_stud(i, cards, k, action)
        elif self.owed and self.owed[i]:
            self._deal_draw(i, cards, k, action)
        else:
            if (before := self.dealt_at[i]) is not None:
                raise self._error(
                    ImpossibleAction, k, action, f"p{i + 1} was already dealt hole cards (action {before + 1})"
                )
            if len(cards) != game.cards and not (game.board and len(cards) in game.counts):
                raise self._error(
                    ImpossibleAction, k, action, f"deals {len(cards)} cards; a {game.name} hand is {game.cards}"
                )
            self.dealt_at[i] = k
            self._place(cards, k, action)
            self.hole[i] = cards

    def _deal_stud(self, i: int, cards: list[str | None], k: int, action: str) -> None:
        """Stud: own cards street by street; the first card of a street after betting closed starts the next one."""
        held = self.hole[i]
        target = _STUD_DEALT[self.street]
        if len(held) + len(cards) > target:
            machine = self.machine
            if self.opening and machine.able > 1 and machine.live > 1:
                reason = "before anybody acts on this street"
            elif machine.to_act is not None and machine.live > 1:
                reason = f"while p{machine.to_act + 1} is still to act"
            else:
                reason = ""
            if reason:
                raise self._error(ImpossibleAction, k, action, f"the next street is dealt {reason}")
            folded = machine.folded
            short = [j + 1 for j in range(self.n) if not folded[j] and len(self.hole[j]) < target]
            if short or self.street + 1 >= len(STUD_STREETS):
                where = f"p{short[0]} still has {len(self.hole[short[0] - 1])}" if short else "7th street is the last"
                raise self._error(ImpossibleAction, k, action, f"deals beyond street {self.street + 3}: {where}")
            self.street += 1
            self.opening = True
            target = _STUD_DEALT[self.street]
            if len(held) + len(cards) > target:
                raise self._error(
                    ImpossibleAction, k, action, f"deals {len(cards)} cards; street {self.street + 3} deals 1"
                )
        if self.machine.folded[i]:
            raise self._error(ImpossibleAction, k, action, f"p{i + 1} folded and is dealt no more cards")
        self._place(cards, k, action)
        self.hole[i] = held + cards

    def _draw(self, i: int, rest: list[str], k: int, action: str) -> None:
        """``pN sd [CARDS]``: discard ``CARDS`` (stand pat without); the machine checked whose draw it is."""
        if not self.owed:
            self.owed = [0] * self.n
        thrown = self._cards(rest[0], k, action) if rest else []
        held = self.hole[i] = list(self.hole[i])  # its own list, changed in place below
        for card in thrown:
            if card is None:
                if None not in held:
                    raise self._error(
                        ImpossibleAction, k, action, f"p{i + 1} discards an unknown card it does not hold"
                    )
                held.remove(None)
            elif card in held:
                held.remove(card)
                self.card_at.pop(card, None)  # a discard may come back after the deck is reshuffled
            elif None in held:
                held.remove(None)
            else:
                raise self._error(ImpossibleAction, k, action, f"p{i + 1} discards {card}, which it does not hold")
        self.owed[i] = len(thrown)

    def _deal_draw(self, i: int, cards: list[str | None], k: int, action: str) -> None:
        """The cards that replace seat ``i``'s discards."""
        if len(cards) != self.owed[i]:
            raise self._error(
                ImpossibleAction, k, action, f"deals {len(cards)} cards to p{i + 1}, who discarded {self.owed[i]}"
            )
        self.owed[i] = 0
        self._place(cards, k, action)
        self.hole[i] = self.hole[i] + cards

    def _show(self, i: int, rest: list[str], k: int, action: str) -> None:
        """The cards a seat shows (the machine checked that it may show): those it was dealt, or its first known."""
        if not rest or rest == ["-"]:
            return  # a muck, or the cards dealt shown
        shown = self._cards("".join(rest), k, action)
        held = self.hole[i]
        if None in shown:
            return  # a partial show reveals nothing the settlement can use
        if not held and not self.game.stud:  # no 'd dh' for this seat (pokerkit deals it '??')
            self._place(shown, k, action)
            self.hole[i] = shown
            return
        known = [card for card in held if card is not None]
        if len(shown) != len(held) or any(card not in shown for card in known):
            raise self._error(
                ImpossibleAction,
                k,
                action,
                f"p{i + 1} shows {_spelled(shown)} but was dealt {_spelled(held)}",
            )
        new = [card for card in shown if card not in known]
        self._place(new, k, action)
        self.hole[i] = shown


_record_of: Final = tuple.__new__
"""``_record_of(HandRecord, (every field in order))``: a record without the NamedTuple's keyword handling."""
_REST: Final = tuple(name == "played_by_reader" or HandRecord._field_defaults[name] for name in HandRecord._fields[8:])
"""A PHH hand's record past its first eight fields: the defaults (no bounties, places, currency, purchases; the
currency code replaced by the file's ``currency`` when it writes one), its betting played by the reader."""
_CODE: Final = HandRecord._fields.index("currency_code") - 8
"""Where the currency code is in :data:`_REST`."""
_INTS: Final = {int}
_STRS: Final = {str}
_CHIP_TYPES: Final = {int, Fraction}
"""The types of a list of chips read from PHH, as sets (a list's ``set(map(type, ...))`` is compared with them)."""
_LABELS: Final = {n: [f"p{i + 1}" for i in range(n)] for n in range(2, MAX_PLAYERS + 1)}
"""Per player count: the players' ids when the file names none."""
_SPELLING: Final = dict(SPELLINGS)
_NOTHING: Final[list[str | None]] = []
"""No cards dealt yet (shared by every seat; a seat's cards are replaced, never extended in place)."""
_STUD_DEALT: Final = tuple(sum(STUD_STREETS[: s + 1]) for s in range(len(STUD_STREETS)))
"""Stud: the own cards a seat holds once each street is dealt (3, 4, 5, 6, 7)."""
_UNLIMITED: Final = 10**15
"""The machine's stack for one PHH writes ``inf`` (unknown): more chips than any bet the file can make."""


_DEAL, _OWN, _FOLD, _CALL, _RAISE, _BOARD, _SHOW, _OTHER = (
    *("deal", "own", "fold", "call", "raise"),
    *("board", "show", "other"),
)
"""The kinds of action :meth:`_Betting.run` plays inline (compared by identity)."""
_BY_VERB: Final = {"f": _FOLD, "cc": _CALL, "sm": _SHOW}
"""A player's action of one word: a fold, a check/call, a muck."""
_PLAYER: Final = {f"p{i + 1}": i for i in range(MAX_PLAYERS)}
_BETS: Final = frozenset(("f", "cc", "cbr", "pb"))
_STEPS: dict[str, tuple[str, int, Any, Any]] = {}
"""Actions read so far (the text as written): the same folds, calls, raises and deals recur from hand to hand."""
_STEPS_KEPT: Final = 65_536


def _step(action: str) -> tuple[str, int, Any, Any]:
    """``(kind, player index, a, b)`` for an action the hot path plays inline, as far as its words go (hold'em
    hole cards and a hold'em show: the two cards, distinct; a muck: none; a raise: the amount; a board: its cards,
    distinct), else ``(_OTHER, ...)``:
    whether it may be played (whose turn, which chips, which deck) is the loop's to check, hand by hand."""
    words = action.split()
    step: tuple[str, int, Any, Any] = (_OTHER, -1, None, None)
    count = len(words)
    if count == 2 and words[1] in ("f", "cc", "sm"):
        i = _PLAYER.get(words[0])
        if i is not None:
            step = (_BY_VERB[words[1]], i, None, None)
    elif count == 4 and words[0] == "d" and words[1] == "dh" and len(words[3]) == 4:
        i = _PLAYER.get(words[2])
        first, second = _SPELLING.get(words[3][:2]), _SPELLING.get(words[3][2:])
        if i is not None and first is not None and second is not None and first != second:
            step = (_DEAL, i, first, second)
    elif count == 4 and words[0] == "d" and words[1] == "dh" and len(words[3]) in (2, 6, 8, 10, 12):
        i, text = _PLAYER.get(words[2]), words[3]
        cards = tuple(_SPELLING.get(text[j : j + 2]) for j in range(0, len(text), 2))
        if i is not None and None not in cards and len(set(cards)) == len(cards):
            step = (_OWN, i, cards, None)
    elif count == 3 and words[1] == "cbr" and words[2].isdigit() and words[2].isascii():
        i = _PLAYER.get(words[0])
        if i is not None:
            step = (_RAISE, i, int(words[2]), None)
    elif count == 3 and words[1] == "sm" and len(words[2]) == 4:
        i = _PLAYER.get(words[0])
        first, second = _SPELLING.get(words[2][:2]), _SPELLING.get(words[2][2:])
        if i is not None and first is not None and second is not None and first != second:
            step = (_SHOW, i, first, second)
    elif count == 3 and words[0] == "d" and words[1] == "db" and len(words[2]) in (2, 6):
        text = words[2]
        board = tuple(_SPELLING.get(text[j : j + 2]) for j in range(0, len(text), 2))
        if None not in board and len(set(board)) == len(board):
            step = (_BOARD, -1, board, None)
    if len(_STEPS) >= _STEPS_KEPT:
        _STEPS.clear()
    _STEPS[action] = step
    return step


def _detect(head: Head) -> bool:
    """A TOML line: a table header (``[hand]``, no ``=``) or a ``key = value`` whose key is a bare word."""
    line = head.line
    if line.startswith("[") and line.endswith("]") and "=" not in line:
        return True
    key, equals, _ = line.partition("=")
    return bool(equals) and key.strip().replace("_", "").replace("-", "").isalnum()


READER: Final = Reader("phh", _detect, read_phh)
