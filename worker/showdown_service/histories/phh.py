"""Read Poker Hand History (PHH) files: one hand per ``.phh``, many under ``[1]``, ``[2]``... in a ``.phhs``.

Why over 400 lines: the PHH reader and the betting state machine it plays each hand's actions through;
the action grammar is one piece.

PHH is TOML. The reader plays each hand's ``actions`` through a small
betting state machine (whose turn it is, how many chips a call or a
``cbr`` raise-to costs, when a street closes) and turns the result into the
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
hand owns its fields), and the usual hold'em actions are played inline, the
general path kept for anything else and for every error.

Over 400 lines: the field reader, the betting state machine of every game
and the hand's record are the replay's hot path per PHH hand (its inlined
loop reads the state machine's own fields), and the errors of all three
name the same file, line and action.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Iterator
from fractions import Fraction
from operator import or_
from typing import Any, Final

from showdown_messages import SCHEMA_VERSION, ShowdownEvent, canonical_card
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
    BOARD_STREETS,
    HOLDEM,
    STUD_CARDS,
    STUD_STREETS,
    Game,
    phh_codes,
    phh_game,
)
from showdown_service.histories.hands import HandRecord, PhhOutcome, validated_event

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

        state = _Betting(self, game, stacks, antes, blinds, trimming, int(bring_in))
        state.run(actions)
        return self._record(state, names, finishing, winnings)

    def _record(
        self,
        state: _Betting,
        names: list[str] | None,
        finishing: dict[int, int | Fraction] | None,
        winnings: dict[int, int | Fraction] | None,
    ) -> HandRecord:
        n = state.n
        game = self.game

        def last() -> int:
            return self._at(state.actions - 1) if state.actions else self._line("actions")

        if state.pending:
            raise ImpossibleAction(
                self.source, self.hand_id, last(), f"the actions end while p{state.pending[0] + 1} is still to act"
            )
        if (state.drawing or state.opening) and state.live > 1 and (waiting := state.still_to_open()):
            raise ImpossibleAction(self.source, self.hand_id, last(), f"the actions end {waiting}")
        put = state.put
        ranked = sorted(put)
        top, second = ranked[-1], ranked[-2]
        if top > second:  # an uncalled bet goes back before the showdown
            put[put.index(top)] = second
        contested = state.folded.count(False) > 1
        in_showdown = [i for i, out in enumerate(state.folded) if not out] if contested else []
        runs = state.runs
        boards = runs or [state.board]
        unverifiable = ""
        short_board = len(state.board) < BOARD_SIZE or (runs and min(map(len, runs)) < BOARD_SIZE)
        if contested and short_board and game.board:
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
            showing = [i for i in in_showdown if not state.mucked[i]]
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
        if winnings is not None and sum(winnings.values()) != sum(put) + sum(state.dead):
            raise ChipsDoNotAddUp(
                self.source,
                self.hand_id,
                self._line("winnings"),
                f"the winnings total {_text(sum(winnings.values()))} chips "
                f"but the pots hold {sum(put) + sum(state.dead)}",
            )

        event = None
        if not unverifiable:
            event = self._event(state, names, put, stacks, boards, holes=holes)
        outcome = (
            _record_of(PhhOutcome, (finishing, winnings)) if finishing is not None or winnings is not None else None
        )
        code = self.fields.get("currency")  # PHH's optional ISO 4217 code; the chips' unit is unnamed without it
        rest = (*_REST[:-1], code) if type(code) is str else _REST
        return _record_of(
            HandRecord,
            (self.source, self.hand_id, self.first_line, event, outcome, unverifiable, contested, game.name, *rest),
        )

    def _event(
        self,
        state: _Betting,
        names: list[str] | None,
        put: list[int],
        stacks: list[int | None],
        boards: list[list[str]],
        *,
        holes: list[list[str] | None],
    ) -> ShowdownEvent:
        game = self.game
        out = list(map(or_, state.folded, state.mucked))  # folded or mucked (both lists of the n seats' bools)
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
                range(1, state.n + 1), names or _LABELS[state.n], holes, put, state.dead, out, stacks, strict=True
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
    """Whose turn it is and what each seat has put in, street by street (indices are player number - 1).

    ``pending`` lists, in order, the seats still to act on this street; a
    seat can act while it has not folded and has chips behind (``left`` is
    ``None`` for an unknown, unlimited stack). Each game deals as
    :mod:`.games` says: board cards street by street (and again for each
    further runout), stud cards to each seat street by street (the seat that
    opens a stud street is the one the history has act first), draw games'
    discards (``sd``) and replacements between betting rounds.
    """

    # Rarely changed from their defaults (set on the instance when they are): kept off __init__, the hot path.
    bring_in = 0
    runs: list[list[str]] = []  # noqa: RUF012  # replaced, never changed in place, while it is the default
    """The boards of a hand run more than once (the first is ``board``); empty when it was run once."""
    shared = 0
    """Board cards every runout shares: those dealt before the last betting action."""
    runout_from: int | None = None
    """The board's size when it was first dealt with at most one seat able to bet: every later run starts with
    those cards (``None`` while betting could go on)."""
    unknown_dealt = False
    """Some own card was dealt unknown (``??``)."""
    street = 0
    """Stud: the street being dealt or bet (0 is 3rd street). Draw games: the draws done."""
    drawing: list[int] | None = None
    """Draw games: the seats still to discard or stand pat in this draw (``None`` outside a draw)."""
    owed: list[int] = []  # noqa: RUF012  # replaced by the first draw
    """Draw games: the cards each seat discarded and is still to be dealt."""

    def __init__(  # noqa: PLR0917  # the hand's forced bets, as the file gives them
        self,
        hand: _Hand,
        game: Game,
        stacks: list[int | None],
        antes: list[int],
        blinds: list[int],
        trimming: bool,
        bring_in: int,
    ) -> None:
        n = self.n = len(stacks)
        self.hand = hand
        self.game = game
        self.fast_deal = game is HOLDEM  # 'd dh pN AsKd', the replay's hot path
        self.fast_own = not (game is HOLDEM or game.draw or game.missing_ranks)  # Omaha's and stud's own cards
        if bring_in:
            self.bring_in = bring_in
        self.stacks = stacks
        self.left: list[int | None] = list(stacks)
        self.put = [0] * n
        self.dead = [0] * n
        self.bet = [0] * n
        self.top = 0
        self.folded = [False] * n
        self.mucked = [False] * n
        self.hole: list[list[str | None]] = [_NOTHING] * n  # replaced, never changed in place
        """Per seat: its own cards as dealt (``None`` for one written ``??``), a draw game's as they stand."""
        self.dealt_at: list[int | None] = [None] * n
        """Per seat: the action that dealt its hole cards (board games: a second deal is an error)."""
        self.board: list[str] = []
        self.opening = game.stud
        """Stud: nobody has acted on this street yet; the first to act opens it."""
        self.actions = 0
        self.card_at: dict[str, int] = {}
        self.index, self.after, self.orders = _SEATING[n]
        self.active = [True] * n  # a seat stays active until it folds or has no chips behind
        self.able = n
        if n == 2 and not game.stud:  # heads-up the list is (small, big) but player 1 is the big blind
            antes, blinds = antes[::-1], blinds[::-1]
        pay, left = self._pay, self.left
        for i, chips in enumerate(antes):
            if chips:  # paying none changes nothing the blinds' loop does not
                pay(i, chips, ante=True, trimming=trimming)
        for i, chips in enumerate(blinds):
            if chips or left[i] == 0:  # paying none matters only to a seat without chips: it cannot act
                pay(i, chips)
        self.live = n
        if game.stud:
            self.pending: list[int] = []
        else:  # the seat after the last of the highest blinds opens
            bet = self.bet
            self.pending = self._round_from((n - bet[::-1].index(max(bet))) % n)

    def _pay(self, i: int, chips: int, *, ante: bool = False, trimming: bool = False) -> None:
        left = self.left[i]
        if left is not None:
            if chips >= left:
                chips = left
                if self.active[i]:
                    self.active[i] = False
                    self.able -= 1
            self.left[i] = left - chips
        if ante and not trimming:
            self.dead[i] += chips
        else:
            self.put[i] += chips
            if not ante:
                bet = self.bet[i] = self.bet[i] + chips
                self.top = max(self.top, bet)

    def _round_from(self, first: int) -> list[int]:
        if self.live < 2:
            return []
        active = self.active
        order = self.orders[first]
        if self.able > 1:
            return [i for i in order if active[i]]
        return [i for i in order if active[i] and self.bet[i] < self.top]

    def _new_round(self) -> None:
        """A betting round after a street or a draw: nothing bet yet."""
        self.bet = [0] * self.n
        self.top = 0
        if self.game.stud:
            self.pending = []
            self.opening = True
        else:
            self.pending = self._round_from(0)

    def still_to_open(self) -> str:
        """Why the hand is not over although nobody is pending: a stud street nobody opened, a draw not done."""
        if self.drawing:
            return f"while p{self.drawing[0] + 1} is still to discard or stand pat"
        if self.opening and self.able > 1 and self.live > 1:
            return "before anybody acts on this street"
        return ""

    def known(self) -> list[list[str] | None]:
        """Each seat's own cards when all of them are dealt and known, else ``None``."""
        if self.fast_deal and not self.unknown_dealt:  # hold'em dealt in the open: two known cards or none
            return [cards or None for cards in self.hole]  # type: ignore[misc]
        counts = self.game.counts
        return [cards if len(cards) in counts and None not in cards else None for cards in self.hole]  # type: ignore[misc]

    def boards(self) -> list[list[str]]:
        """Every board: the one board, or each runout's."""
        return self.runs or [self.board]

    def _error(self, kind: type[ReplayError], k: int, action: str, reason: str) -> ReplayError:
        hand = self.hand
        return kind(hand.source, hand.hand_id, hand._at(k), f"action {k + 1} {action!r}: {reason}", hand.game_name)

    def _cards(self, text: str, k: int, action: str) -> list[str | None]:
        if len(text) == 4:  # hole cards, the usual case
            first, second = _SPELLING.get(text[:2]), _SPELLING.get(text[2:])
            if first is not None and second is not None:
                return [first, second]
        elif len(text) == 6 or len(text) == 2:  # a flop, a turn or a river
            known: list[str | None] = [_SPELLING.get(text[j : j + 2]) for j in range(0, len(text), 2)]
            if None not in known:
                return known
        if len(text) % 2:
            raise self._error(HandSyntaxError, k, action, f"{text!r} is not a run of two-character cards")
        out: list[str | None] = []
        for j in range(0, len(text), 2):
            chunk = text[j : j + 2]
            if chunk == "??":
                out.append(None)
                continue
            card = canonical_card(chunk)
            if card is None:
                raise self._error(HandSyntaxError, k, action, f"{chunk!r} is not a card")
            out.append(card)
        return out

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

    def run(self, actions: list[Any]) -> None:
        """Play every action. The common ones (deal hold'em hole cards and the board, fold, check/call, raise) are
        inlined: this loop is the replay's hot path; anything else, and any of them that breaks a rule (for the
        error), goes through :meth:`act`. Each action's words are read once per text (:func:`_step`)."""
        hole, card_at, dealt_at, n = self.hole, self.card_at, self.dealt_at, self.n
        fast_deal, folded, active, after = self.fast_deal, self.folded, self.active, self.after  # never replaced
        fast_own = self.fast_own
        known = _STEPS.get
        for k, action in enumerate(actions):
            if type(action) is not str:
                hand = self.hand
                raise HandSyntaxError(hand.source, hand.hand_id, hand._at(k), f"action {action!r} is not text")
            kind, i, first, second = known(action) or _step(action)
            if kind is _FOLD or kind is _CALL:
                pending = self.pending
                if i < n and pending and pending[0] == i:
                    del pending[0]
                    able = self.able
                    if kind is _CALL:
                        if self.bet[i] < self.top:
                            self._pay(i, self.top - self.bet[i])
                    else:
                        folded[i] = True
                        self.live -= 1
                        active[i] = False
                        self.able -= 1
                    if self.live < 2 or self.able < 2 <= able:  # else nothing changes: see _after_action
                        self._after_action(pending, able)
                    continue
            elif kind is _DEAL:
                if fast_deal and i < n and dealt_at[i] is None and first not in card_at and second not in card_at:
                    card_at[first] = card_at[second] = dealt_at[i] = k
                    hole[i] = [first, second]
                    continue
            elif kind is _RAISE:
                pending = self.pending
                if i < n and pending and pending[0] == i and first > self.top and not (self.opening or self.drawing):
                    left, bet = self.left[i], self.bet[i]
                    if left is None or first - bet <= left:  # no stud street to open, no draw under way
                        del pending[0]
                        able = self.able
                        self._pay(i, first - bet)
                        self.pending = pending = [j for j in after[i] if active[j]]
                        if self.live < 2 or self.able < 2 <= able:  # else nothing changes: see _after_action
                            self._after_action(pending, able)
                        continue
            elif kind is _OWN:  # Omaha's own cards, or a stud seat's cards of the street being dealt
                if fast_own and i < n and self._dealt_own(i, first, k):
                    continue
            elif kind is _SHOW:  # 'pN sm' (a muck) or 'pN sm CARDS': the seat's own two cards, in any order
                if fast_deal and i < n and not folded[i] and not self.pending:
                    if first is None:
                        self.mucked[i] = True
                        continue
                    held = hole[i]
                    if len(held) == 2 and first in held and second in held:  # both known: nothing new is placed
                        hole[i] = [first, second]
                        continue
            elif kind is _BOARD and fast_deal and not self.pending and not self.runs and self._dealt_board(first, k):
                continue
            self.act(action, k)
        self.actions = len(actions)  # each action above set it as it was played (the hand is dropped on an error)

    def _dealt_own(self, i: int, first: Any, k: int) -> bool:
        """:meth:`run`'s quick path for a seat's own cards (Omaha's, or a stud street's): True if placed, False to
        let :meth:`act` play the action (and name what is wrong with it)."""
        card_at, hole = self.card_at, self.hole
        if any(card in card_at for card in first):
            return False
        held = hole[i]
        if self.game.stud:
            if self.folded[i] or len(held) + len(first) > _STUD_DEALT[self.street]:
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
        """:meth:`run`'s quick path for the next street's board cards: True if dealt (a new betting round begins),
        False to let :meth:`act` play the action."""
        board, card_at = self.board, self.card_at
        if _STREET_CARDS.get(len(board)) != len(first) or any(card in card_at for card in first):
            return False
        if self.able < 2 and self.runout_from is None:  # nobody can bet any more: the runout starts here
            self.runout_from = len(board)
        for card in first:
            card_at[card] = k
        board += first
        self.bet = [0] * self.n  # a new betting round
        self.top = 0
        self.pending = self._round_from(0)
        return True

    def _after_action(self, pending: list[int], able: int) -> None:
        if self.live < 2:
            self.pending = []
        elif self.able < 2 and able >= 2:  # the last seat with chips behind acts only if it faces a bet
            active, bet, top = self.active, self.bet, self.top
            self.pending = [j for j in pending if active[j] and bet[j] < top]

    def act(self, action: str, k: int) -> None:  # one branch per kind of action
        self.actions = k + 1
        words = (action.split("#", 1)[0] if "#" in action else action).split()
        if not words:
            return
        actor = words[0]
        if actor == "d":
            self._deal(words, k, action)
            return
        i = self.index.get(actor)
        if i is None:
            raise self._error(
                HandSyntaxError, k, action, f"{actor!r} is not a player (p1 to p{self.n}) or the dealer (d)"
            )
        verb = words[1] if len(words) > 1 else ""
        if verb == "sm":
            self._show(i, words[2:], k, action)
            return
        if verb == "sd":
            self._draw(i, words[2:], k, action)
            return
        if verb not in ("f", "cc", "cbr", "pb") or len(words) != (3 if verb == "cbr" else 2):
            raise self._error(
                HandSyntaxError, k, action, "not an action (f, cc, cbr AMOUNT, pb, sd [CARDS], sm [CARDS])"
            )
        if self.drawing:
            raise self._error(
                ImpossibleAction, k, action, f"p{i + 1} bets while p{self.drawing[0] + 1} is still to draw"
            )
        if verb == "pb" and not (self.game.stud and self.street == 0 and self.opening):
            raise self._error(ImpossibleAction, k, action, "a bring-in opens a stud hand's first street, nothing else")
        if self.opening and self.live > 1:
            if self.folded[i] or not self.active[i]:
                raise self._error(ImpossibleAction, k, action, f"p{i + 1} cannot act: folded or all-in")
            if self.street == 0 and verb not in ("pb", "cbr"):
                raise self._error(
                    ImpossibleAction, k, action, "a stud hand opens with the bring-in (pb) or a completion"
                )
            self.opening = False
            active = self.active
            self.pending = [i, *(j for j in self.after[i] if active[j])]
        pending = self.pending
        if not pending:
            raise self._error(ImpossibleAction, k, action, f"p{i + 1} acts but no betting is open")
        if pending[0] != i:
            raise self._error(ImpossibleAction, k, action, f"p{i + 1} acts out of turn: p{pending[0] + 1} is to act")
        del pending[0]
        able = self.able
        if verb == "cc":
            self._pay(i, self.top - self.bet[i])
        elif verb == "f":
            self.folded[i] = True
            self.live -= 1
            self.active[i] = False
            self.able -= 1
        else:
            if verb == "pb":
                amount = self.bring_in
                left = self.left[i]
                amount = amount if left is None else min(amount, left)
            else:
                parsed = _amount(words[2])
                if parsed is None:
                    raise self._error(HandSyntaxError, k, action, f"{words[2]!r} is not a whole number of chips")
                amount = parsed
                if amount <= self.top:
                    raise self._error(
                        ImpossibleAction, k, action, f"a raise to {amount} does not raise the bet of {self.top}"
                    )
                left = self.left[i]
                if left is not None and amount - self.bet[i] > left:
                    raise self._error(
                        ImpossibleAction,
                        k,
                        action,
                        f"raising to {amount} takes {amount - self.bet[i]} chips; p{i + 1} has {left}",
                    )
            self._pay(i, amount - self.bet[i])
            active = self.active
            self.pending = pending = [j for j in self.after[i] if active[j]]
        self._after_action(pending, able)

    def _deal(self, words: list[str], k: int, action: str) -> None:
        if len(words) == 4 and words[1] == "dh":
            i = self.index.get(words[2])
            if i is None:
                raise self._error(HandSyntaxError, k, action, f"{words[2]!r} is not a player (p1 to p{self.n})")
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
            return
        if len(words) != 3 or words[1] != "db":
            raise self._error(HandSyntaxError, k, action, "not a deal (d dh pN CARDS, d db CARDS)")
        if not self.game.board:
            raise self._error(ImpossibleAction, k, action, f"{self.game.name} has no board")
        if self.pending:
            raise self._error(
                ImpossibleAction, k, action, f"the board is dealt while p{self.pending[0] + 1} is still to act"
            )
        cards = self._cards(words[2], k, action)
        if None in cards:
            raise self._error(HandSyntaxError, k, action, "board cards cannot be unknown")
        board = self.board
        if len(board) >= BOARD_SIZE or self.runs:  # another runout of a board already complete
            board = self._next_runout(k, action)
        expected = _STREET_CARDS[len(board)]
        if len(cards) != expected:
            raise self._error(
                ImpossibleAction,
                k,
                action,
                f"deals {len(cards)} board cards; the {_STREETS[len(board)]} has {expected}",
            )
        if self.able < 2 and self.runout_from is None:  # nobody can bet any more: the runout starts here
            self.runout_from = len(board)
        self._place(cards, k, action)
        board += cards  # type: ignore[arg-type]  # no None: checked above
        self.bet = [0] * self.n  # a new betting round (board games only)
        self.top = 0
        self.pending = self._round_from(0)

    def _next_runout(self, k: int, action: str) -> list[str]:
        """The board the next cards go to once the first board is complete: the runout being dealt, or a new one
        that starts with the cards dealt before the betting ended (everybody but one all-in)."""
        if not self.runs:
            if self.runout_from is None:
                raise self._error(
                    ImpossibleAction, k, action, "board cards dealt after the river, and nobody is all-in"
                )
            self.shared = self.runout_from
            self.runs = [self.board]
        current = self.runs[-1]
        if len(current) < BOARD_SIZE:
            return current
        if len(self.runs) == MAX_RUNS:
            raise self._error(
                UnsupportedHand, k, action, f"a board run more than {MAX_RUNS} times; the contract takes 2 or 3 runs"
            )
        current = self.board[: self.shared]
        self.runs.append(current)
        return current

    def _deal_stud(self, i: int, cards: list[str | None], k: int, action: str) -> None:
        """Stud: own cards street by street; the first card of a street after betting closed starts the next one."""
        held = self.hole[i]
        target = _STUD_DEALT[self.street]
        if len(held) + len(cards) > target:
            reason = self.still_to_open() or (
                f"while p{self.pending[0] + 1} is still to act" if self.pending and self.live > 1 else ""
            )
            if reason:
                raise self._error(ImpossibleAction, k, action, f"the next street is dealt {reason}")
            short = [j + 1 for j in range(self.n) if not self.folded[j] and len(self.hole[j]) < target]
            if short or self.street + 1 >= len(STUD_STREETS):
                where = f"p{short[0]} still has {len(self.hole[short[0] - 1])}" if short else "7th street is the last"
                raise self._error(ImpossibleAction, k, action, f"deals beyond street {self.street + 3}: {where}")
            self.street += 1
            self._new_round()
            target = _STUD_DEALT[self.street]
            if len(held) + len(cards) > target:
                raise self._error(
                    ImpossibleAction, k, action, f"deals {len(cards)} cards; street {self.street + 3} deals 1"
                )
        if self.folded[i]:
            raise self._error(ImpossibleAction, k, action, f"p{i + 1} folded and is dealt no more cards")
        self._place(cards, k, action)
        self.hole[i] = held + cards

    def _draw(self, i: int, rest: list[str], k: int, action: str) -> None:
        """``pN sd [CARDS]``: discard ``CARDS`` (stand pat without) in a draw game's draw."""
        game = self.game
        if not game.draw:
            raise self._error(ImpossibleAction, k, action, f"{game.name} has no draw")
        if self.drawing is None:
            if self.pending and self.live > 1:
                raise self._error(
                    ImpossibleAction, k, action, f"p{i + 1} draws while p{self.pending[0] + 1} is still to act"
                )
            if self.street >= game.draws:
                raise self._error(ImpossibleAction, k, action, f"{game.name} has {game.draws} draw(s)")
            self.street += 1
            self.drawing = [j for j in [0, *self.after[0]] if not self.folded[j]]
            if not self.owed:
                self.owed = [0] * self.n
        if i not in self.drawing:
            raise self._error(ImpossibleAction, k, action, f"p{i + 1} has already drawn or is out of the hand")
        self.drawing.remove(i)
        if len(rest) > 1:
            raise self._error(HandSyntaxError, k, action, "expected 'pN sd' or 'pN sd CARDS'")
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
        if not self.drawing:
            self.drawing = None
            self._new_round()

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
        if self.folded[i]:
            raise self._error(ImpossibleAction, k, action, f"p{i + 1} folded and has nothing to show")
        if self.pending:
            raise self._error(
                ImpossibleAction, k, action, f"p{i + 1} shows down while p{self.pending[0] + 1} is still to act"
            )
        if not rest:
            self.mucked[i] = True
            return
        if rest == ["-"]:
            return  # show the cards dealt
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
_REST: Final = tuple(HandRecord._field_defaults[name] for name in HandRecord._fields[8:])
"""A PHH hand's record past its first eight fields: the defaults (no bounties, places, currency, purchases; the
currency code last, replaced by the file's ``currency`` when it writes one)."""
_INTS: Final = {int}
_STRS: Final = {str}
_CHIP_TYPES: Final = {int, Fraction}
"""The types of a list of chips read from PHH, as sets (a list's ``set(map(type, ...))`` is compared with them)."""
_SEATING: Final = {
    n: (
        {f"p{i + 1}": i for i in range(n)},
        [[(i + s) % n for s in range(1, n)] for i in range(n)],
        [[(i + s) % n for s in range(n)] for i in range(n)],
    )
    for n in range(2, MAX_PLAYERS + 1)
}
"""Per player count: player label -> index, each index's followers clockwise, and each index with them."""
_LABELS: Final = {n: [f"p{i + 1}" for i in range(n)] for n in range(2, MAX_PLAYERS + 1)}
"""Per player count: the players' ids when the file names none."""
_SPELLING: Final = dict(SPELLINGS)
_NOTHING: Final[list[str | None]] = []
"""No cards dealt yet (shared by every seat; a seat's cards are replaced, never extended in place)."""
_STREETS: Final = {0: "flop", 3: "turn", 4: "river"}
_STREET_CARDS: Final = {0: BOARD_STREETS[0], 3: BOARD_STREETS[1], 4: BOARD_STREETS[2]}
"""Board cards a street deals, by the board's size before it."""
_STUD_DEALT: Final = tuple(sum(STUD_STREETS[: s + 1]) for s in range(len(STUD_STREETS)))
"""Stud: the own cards a seat holds once each street is dealt (3, 4, 5, 6, 7)."""


def _amount(text: str) -> int | None:
    if text.isascii() and text.isdigit():  # '²' and other non-ASCII digits go to Fraction, which refuses them
        return int(text)
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    return int(value) if value.denominator == 1 and value >= 0 else None


_DEAL, _OWN, _FOLD, _CALL, _RAISE, _BOARD, _SHOW, _OTHER = (
    *("deal", "own", "fold", "call", "raise"),
    *("board", "show", "other"),
)
"""The kinds of action :meth:`_Betting.run` plays inline (compared by identity)."""
_BY_VERB: Final = {"f": _FOLD, "cc": _CALL, "sm": _SHOW}
"""A player's action of one word: a fold, a check/call, a muck."""
_PLAYER: Final = {f"p{i + 1}": i for i in range(MAX_PLAYERS)}
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
