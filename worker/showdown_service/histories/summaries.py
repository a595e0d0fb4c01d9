"""Tournament summaries: what a room says of a whole tournament (places, prizes, the prize pool), read.

PokerStars writes (the ``Tournament Summary`` the client exports)::

    PokerStars Tournament #80000001, No Limit Hold'em
    Buy-In: $4.00/$1.00/$0.50 USD
    4 players
    Total Prize Pool: $16.00 USD
    Tournament started 2026/11/25 12:00:00 ET

      1: Ada (United Kingdom), $10.40 (65%)
      2: Ben (Germany), $5.60 (35%)
      3: Cal (France),
      4: Dee (Spain), still playing

A re-entry writes its number after the name (``Ada [2] (...)``); tied
players share a place number.

Full Tilt writes (its client's ``Tournament Summary``; no shares, no countries)::

    Full Tilt Poker Tournament Summary $5 + $0.50 Sit & Go (600000001) Hold'em No Limit
    Buy-In: $5 + $0.50
    Buy-In Chips: 1500
    3 Entries
    Total Prize Pool: $15
    Tournament started: 2026/11/25 12:00:00 ET
    Tournament finished: 2026/11/25 12:05:00 ET
    1: Ann, $10.50
    2: Bob, $4.50
    3: Cid
    Ann finished in 1st place

A row may pay a ticket (``1: Ann, Step 2 Ticket``: no money, ``prize``
``None``); a player still in writes ``Still Playing - NAME``; a play-money
tournament writes ``1,500 Play Chips``; the player whose summary it is gets a
``NAME finished in Nth place`` line (some exports have only that line).

Open Tournament Summary (``.ots``, ts-specs.handhistory.org; WPN and others
export it): ``{"ots": {"tournament_number", "currency", "buyin_amount",
"fee_amount", "bounty_fee_amount", "prize_pool", "player_count",
"tournament_finishes_and_winnings": [{"player_name", "finish_position",
"still_playing", "prize", "ticket_value"}]}}``, amounts in the currency
(``buyin_amount``: the prize part of one buy-in, the fee and the bounty in
their own fields; ``ticket_value``: a ticket's worth, a prize that is no
money). The Winning Poker Network's client (ACR) writes the same fields on one
line without the ``{"ots": ...}`` wrapper, its ``tournament_number`` written
``"T#36074377"`` (the hands' ``Tournament #36074377``), with
``"network_name": "WinningPokerNetwork"``, ``"site_name": "AmericasCardroom"``:
both forms are read alike, the number as its digits (docs/replay.md, Open
Tournament Summaries).

GGPoker writes (its client's tournament summary: the player's own row only; public parsers' tests show it)::

    Tournament #900001, Bounty Hunters $5.25, Hold'em No Limit
    Buy-in: $2.50+$0.25+$2.50
    3 Players
    Total Prize Pool: $7.50
    Tournament started 2026/11/25 13:00:00
    1st : Hero, $7.50
    You finished the tournament in 1st place.
    You received a total of $7.50.

(the buy-in's prize part first; a ticket ``5th : Hero, $50 Entry``; ``You made 1 re-entries and received a total
of ...``): a summary of one player, ``partial``, whose rows cannot give the payout table nor add up to the pool.

:mod:`.tournaments` compares each row with the hands.

Over 400 lines: the four summary formats (PokerStars', Full Tilt's, GGPoker's text and Open Tournament Summary
JSON) are read side by side, each refusing what it cannot read (a number beyond any field, a document nested
beyond reading) with the line, never with an exception that ends the audit.
"""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal, InvalidOperation, Overflow
from typing import Any, Final, NamedTuple

from showdown_service.histories.errors import HandSyntaxError, ReplayError, unreadable
from showdown_service.histories.hands import MAX_AMOUNT, TOO_LARGE, too_long

_SUMMARY_HEAD = re.compile(r"^PokerStars Tournament #(\d+),\s*(.*)$")
_PLAYERS = re.compile(r"^(\d+) players?\s*$")
_POOL = re.compile(r"^Total Prize Pool:\s*(\S+)")
_BUY_IN = re.compile(r"^Buy-In:\s*(.+)$")
_ROW = re.compile(
    r"^(\d+): (.+?)(?: \[(\d+)\])? \(([^()]*)\),?\s*(?:(\S+?)\s*(?:\((\d+(?:\.\d+)?)%\))?)?\s*(still playing)?\s*$"
)


_ROW_START = re.compile(r"\d+\s*:")
"""A row's place and colon, the place of any length (``123456: Eve ...``: a row, never a line skipped)."""

_FT_HEAD = re.compile(r"^Full Tilt Poker Tournament Summary (.*?)\((\d+)\)\s*(.*)$")
_FT_ENTRIES = re.compile(r"^(\d+) Entries\s*$")
_FT_ROW = re.compile(r"^(?:(\d+): |Still Playing(?: -|:) )([^,]+?)(?:, (.+?))?\s*$")
_FT_FINISHED = re.compile(r"^(.+) finished in (\d+)(?:st|nd|rd|th) place\s*$")
_FT_PLAY_CHIPS = re.compile(r"^([\d,]+) Play Chips$")

_GG_HEAD = re.compile(r"^Tournament #(\d+),\s*(.*)$")
_GG_PLAYERS = re.compile(r"^([\d,]+) Players?\s*$")
_GG_ROW = re.compile(r"^(\d+)(?:st|nd|rd|th) : (.+), (\S.*?)\s*$")
_GG_FINISHED = re.compile(r"^You finished the tournament in (\d+)(?:st|nd|rd|th) place\.?\s*$")


PLACE_ONLY: Final = "place only"
"""The ``award`` of a row read from a line that gives a place and no prize (Full Tilt's ``finished in``,
GGPoker's ``You finished the tournament in``)."""


class SummaryRow(NamedTuple):
    """One row of a tournament summary: ``  2: Ben (Germany), $5.60 (35%)``."""

    place: int
    player: str
    entry: int
    """1, or the re-entry number written ``[2]``."""
    prize: int | None
    """Cents; ``None`` when the row gives none."""
    percent: str
    """The payout table's share as written (``35``), or ``""``."""
    playing: bool
    """``still playing``: the summary was written before the player finished."""
    line: int
    award: str = ""
    """A prize that is no money, as written (Full Tilt's ``Step 2 Ticket``); ``prize`` is then ``None``."""


class Summary(NamedTuple):
    """A PokerStars tournament summary, read."""

    source: str
    tournament_id: str
    players: int | None
    pool: int | None
    """The prize pool in cents."""
    rows: tuple[SummaryRow, ...]
    line: int
    room: str = "pokerstars"
    """The room whose format the summary is in (``pokerstars``, ``fulltilt``, ``ots``)."""
    finishes: tuple[SummaryRow, ...] = ()
    """Full Tilt's ``NAME finished in Nth place`` lines (place only), each checked against the rows."""
    site: str = ""
    """An Open Tournament Summary's ``site_name`` (else ``network_name``): the site whose Open Hand History hands it
    describes; ``""`` for a room's own format, or an ``.ots`` naming none."""
    network: str = ""
    """An Open Tournament Summary's ``network_name`` (``WinningPokerNetwork``), ``""`` when it names none."""
    partial: bool = False
    """The summary lists its own player's rows only (GGPoker's; an ``.ots`` with fewer rows than its
    ``player_count``): no payout table from them, no sum to the pool."""
    buy_in: int | None = None
    """The prize part of one buy-in (cents: ``Buy-In: $4.00/$1.00/$0.50`` -> 400, Full Tilt's ``$5 + $0.50`` ->
    500, an ``.ots``'s ``"buyin_amount": 10`` -> 1000), when the summary states it: the field's entries times it
    is the prize money they put in."""

    def entries(self) -> int | None:
        """The field in entries, re-entries included (each puts a buy-in's prize in the pool): the count line, which
        counts entries (PokerStars' ``N players``: a player and their re-entry ``[2]`` are two, each with a row of
        its own; Full Tilt's ``N Entries``); ``None`` when the summary states none."""
        return self.players

    def field(self) -> tuple[str, str] | None:
        """The field against the prize pool: ``("prize pool", why)`` when the pool holds less than the entries' prize
        money, ``("checked", note)`` when it holds more (a guarantee's overlay, rebuys, add-ons: not told apart),
        ``None`` when they agree or the summary does not state them."""
        entries = self.entries()
        if self.buy_in is None or entries is None or self.pool is None:
            return None
        put_in = entries * self.buy_in
        if self.pool < put_in:
            return "prize pool", (
                f"{entries} entries at {self.buy_in} prize each put {put_in} in; the prize pool is {self.pool}"
            )
        if self.pool > put_in:
            return "checked", (
                f"the prize pool ({self.pool}) is {self.pool - put_in} more than the {entries} entries' prize "
                f"money ({put_in}): a guarantee's overlay, or rebuys and add-ons"
            )
        return None


class _Refused(Exception):
    """A summary refused where it was read (a place or a count of more digits than any field): :attr:`error`."""

    def __init__(self, error: ReplayError) -> None:
        super().__init__(str(error))
        self.error = error


def read_summary(text: str, source: str) -> Summary | ReplayError | None:
    """A tournament summary in ``text`` (PokerStars', Full Tilt's or GGPoker's text, Open Tournament Summary JSON);
    ``None`` when ``text`` is no summary; an error naming the line (a summary nested or numbered beyond reading
    too: never an exception that would end the audit)."""
    try:
        return _read_summary(text, source)
    except _Refused as refused:
        return refused.error
    except (ValueError, RecursionError) as exc:  # Open Tournament Summary JSON nested or numbered beyond reading
        return unreadable(exc, source, None, _long_number_line(text) if isinstance(exc, ValueError) else 1)


def _long_number_line(text: str) -> int:
    """The 1-based line of the first number of ``text`` too long to read (1 when there is none)."""
    found = _LONG_NUMBER.search(text)
    return text.count("\n", 0, found.start()) + 1 if found else 1


_LONG_NUMBER: Final = re.compile(rf"\d{{{sys.get_int_max_str_digits() + 1}}}")


_SHOWN: Final = 24
"""Digits of a place or count too long to read that its error quotes."""


def _ordinal(text: str, source: str, k: int, what: str) -> int:
    """A place or a count as written at 0-based line ``k`` (``what`` it is): more digits than any field has (the
    contract's 2^53-1) is an error naming the line, never a number of thousands of digits."""
    if too_long(text) or (number := int(text)) > MAX_AMOUNT:
        written = text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({len(text)} digits)"
        raise _Refused(HandSyntaxError(source, None, k + 1, f"{what} {written} is more than any field (2^53-1)"))
    return number


def _read_summary(text: str, source: str) -> Summary | ReplayError | None:
    body = text.lstrip("\ufeff \t\r\n")
    if body.startswith("{") and is_ots(body):
        return _read_ots(body, source)
    lines = [line.strip() for line in text.replace("\ufeff", "").splitlines()]
    start = next((k for k, line in enumerate(lines) if line), None)
    if start is not None and lines[start].startswith("Full Tilt Poker Tournament Summary"):
        return _read_fulltilt(lines, start, source)
    if start is not None and lines[start].startswith("Tournament #"):
        return _read_ggpoker(lines, start, source)
    if start is not None and lines[start].startswith(_CASSAVA_HEAD):
        return _read_cassava(lines, start, source)
    if start is None or not (head := _SUMMARY_HEAD.match(lines[start])):
        return None
    players = pool = buy_in = None
    rows: list[SummaryRow] = []
    for k in range(start + 1, len(lines)):
        line = lines[k]
        if m := _PLAYERS.match(line):
            players = _ordinal(m.group(1), source, k, "the count of players")
        elif m := _BUY_IN.match(line):
            buy_in = _cents(m.group(1).split("/")[0].split()[0])
        elif m := _POOL.match(line):
            pool = _cents(m.group(1))
            if pool is None:
                return HandSyntaxError(source, None, k + 1, f"{m.group(1)!r} is not an amount")
        elif line[:1].isdigit() and (":" in line[:6] or _ROW_START.match(line)):  # a place of any length
            row = _ROW.match(line)
            prize = _cents(row.group(5)) if row and row.group(5) else None
            if row is None or (row.group(5) and prize is None):
                return HandSyntaxError(
                    source, None, k + 1, f"not a summary row ('N: NAME (COUNTRY), $PRIZE (P%)'): {line!r}"
                )
            rows.append(SummaryRow(_ordinal(row.group(1), source, k, "place"), row.group(2),
                                   _ordinal(row.group(3) or "1", source, k, "entry"), prize,
                                   row.group(6) or "", bool(row.group(7)), k + 1))  # fmt: skip
    return Summary(source, head.group(1), players, pool, tuple(rows), start + 1, buy_in=buy_in)


def summary_room(text: str) -> str:
    """The room whose summary format ``text`` is in, by its first characters (for naming an unreadable one)."""
    body = text.lstrip("\ufeff \t\r\n")
    if body.startswith("Tournament #"):
        return "ggpoker"
    if body.startswith(_CASSAVA_HEAD):
        return "888poker"
    return "fulltilt" if body.startswith("Full Tilt") else "ots" if body.startswith("{") else "pokerstars"


def _read_fulltilt(lines: list[str], start: int, source: str) -> Summary | ReplayError:
    """A Full Tilt tournament summary from its head line ``lines[start]``; an error naming the line."""
    head = _FT_HEAD.match(lines[start])
    if head is None:
        return HandSyntaxError(
            source, None, start + 1, "expected 'Full Tilt Poker Tournament Summary NAME (NUMBER) GAME'"
        )
    players = pool = buy_in = None
    rows: list[SummaryRow] = []
    finishes: list[SummaryRow] = []
    for k in range(start + 1, len(lines)):
        line = lines[k]
        if m := _FT_ENTRIES.match(line):
            players = _ordinal(m.group(1), source, k, "the count of entries")
        elif m := _BUY_IN.match(line):
            buy_in = _ft_amount(m.group(1).split("+")[0])
        elif line.startswith("Total Prize Pool:"):
            pool = _ft_amount(line[len("Total Prize Pool:") :])
            if pool is None:
                return HandSyntaxError(source, None, k + 1, f"{line!r}: the prize pool is not an amount")
        elif (line[:1].isdigit() and (": " in line[:8] or _ROW_START.match(line))) or line.startswith("Still Playing"):
            row = _FT_ROW.match(line)
            if row is None:
                return HandSyntaxError(source, None, k + 1, f"not a summary row ('N: NAME[, $PRIZE]'): {line!r}")
            written = row.group(3) or ""
            prize = _ft_amount(written) if written else None
            award = written if written and prize is None else ""
            if award[:1] in ("$", "€", "£"):
                return HandSyntaxError(source, None, k + 1, f"{written!r} is not an amount (row {line!r})")
            playing = row.group(1) is None
            place = _ordinal(row.group(1) or "0", source, k, "place")
            rows.append(SummaryRow(place, row.group(2), 1, prize, "", playing, k + 1, award))
        elif m := _FT_FINISHED.match(line):
            place = _ordinal(m.group(2), source, k, "place")
            finishes.append(SummaryRow(place, m.group(1), 1, None, "", False, k + 1, PLACE_ONLY))
    if not rows:  # an export with only its player's 'finished in' line: that line is the row
        rows, finishes = finishes, []
    return Summary(
        source, head.group(2), players, pool, tuple(rows), start + 1, "fulltilt", tuple(finishes), buy_in=buy_in
    )


def _read_ggpoker(lines: list[str], start: int, source: str) -> Summary | ReplayError:
    """A GGPoker tournament summary from its head line ``lines[start]``; an error naming the line."""
    head = _GG_HEAD.match(lines[start])
    if head is None:
        return HandSyntaxError(source, None, start + 1, "expected 'Tournament #NUMBER, NAME, GAME'")
    players = pool = buy_in = None
    rows: list[SummaryRow] = []
    finished: list[tuple[int, int]] = []
    for k in range(start + 1, len(lines)):
        line = lines[k]
        if m := _GG_PLAYERS.match(line):
            players = _ordinal(m.group(1).replace(",", ""), source, k, "the count of players")
        elif line.startswith("Buy-in:"):
            buy_in = _cents(re.split(r"\s*\+\s*", line[len("Buy-in:") :].strip())[0])
        elif line.startswith("Total Prize Pool:"):
            pool = _cents(line[len("Total Prize Pool:") :])
            if pool is None:
                return HandSyntaxError(source, None, k + 1, f"{line!r}: the prize pool is not an amount")
        elif line[:1].isdigit() and " : " in line:
            row = _GG_ROW.match(line)
            if row is None:
                return HandSyntaxError(source, None, k + 1, f"not a summary row ('Nth : NAME, $PRIZE'): {line!r}")
            written = row.group(3)
            prize = _cents(written)
            if prize is None and " " not in written:  # one word that is no amount; '$50 Entry' is a ticket
                return HandSyntaxError(source, None, k + 1, f"{written!r} is not an amount (row {line!r})")
            award = written if prize is None else ""
            rows.append(SummaryRow(_ordinal(row.group(1), source, k, "place"), row.group(2), 1, prize, "", False, k + 1,
                                   award))  # fmt: skip
        elif m := _GG_FINISHED.match(line):
            finished.append((_ordinal(m.group(1), source, k, "place"), k + 1))
    # 'You finished ... in Nth place' is the summary's own player: its row's, when it has one row
    finishes = tuple(
        SummaryRow(place, rows[0].player, 1, None, "", False, line, PLACE_ONLY) for place, line in finished
    ) if len(rows) == 1 else ()  # fmt: skip
    return Summary(source, head.group(1), players, pool, tuple(rows), start + 1, "ggpoker", finishes, partial=True,
                   buy_in=buy_in)  # fmt: skip


_CASSAVA_HEAD: Final = "***** Cassava Tournament Summary"
_CASSAVA_ID = re.compile(r"^Tournament ID:\s*(\d+)\s*$")
_CASSAVA_FINISHED = re.compile(r"^(.+?) finished (\d+)/(\d+)\s*$")


def _read_cassava(lines: list[str], start: int, source: str) -> Summary | ReplayError:
    """888poker's summary (``***** Cassava Tournament Summary *****``, ``Tournament ID: 78669312``, ``Buy-In: $0.09 +
    $0.01``, ``jpprewitt finished 59/76``: the exporting player's place of the field; rooms-more's 888poker files):
    one player's row, ``partial``, the field its ``/N``; an error naming the line."""
    number = buy_in = players = None
    rows: list[SummaryRow] = []
    for k in range(start + 1, len(lines)):
        line = lines[k]
        if m := _CASSAVA_ID.match(line):
            number = m.group(1)
        elif m := _BUY_IN.match(line):
            buy_in = _cents(re.split(r"\s*\+\s*", m.group(1).strip())[0])
        elif m := _CASSAVA_FINISHED.match(line):
            place = _ordinal(m.group(2), source, k, "place")
            field = _ordinal(m.group(3), source, k, "the count of players")
            if players is not None and field != players:
                return HandSyntaxError(source, None, k + 1, f"a field of {field}, where a line above says {players}")
            players = field
            rows.append(SummaryRow(place, m.group(1), 1, None, "", False, k + 1, PLACE_ONLY))
        elif line:
            return HandSyntaxError(source, None, k + 1, f"not a line of 888poker's summary: {line!r}")
    if number is None:
        return HandSyntaxError(source, None, start + 1, "no 'Tournament ID: N' line")
    return Summary(source, number, players, None, tuple(rows), start + 1, "888poker", partial=True, buy_in=buy_in)


def _ft_amount(text: str) -> int | None:
    """Full Tilt money in cents (``$10.50``, ``$1,500``), play money in chips (``1,500 Play Chips``), else None."""
    text = text.strip()
    if m := _FT_PLAY_CHIPS.match(text):
        chips = m.group(1).replace(",", "")
        return None if too_long(chips) or int(chips) > MAX_AMOUNT else int(chips)
    return _cents(text) if text[:1] in "$€£" else None


def _cents(text: str) -> int | None:
    """An amount in cents, or ``None`` when it is none (or more than the contract's 2^53-1)."""
    clean = text.strip().strip(",").lstrip("$€£").replace(",", "")
    whole, dot, part = clean.partition(".")
    if not whole.isdigit() or (dot and not (part.isdigit() and len(part) <= 2)) or too_long(whole):
        return None
    cents = int(whole) * 100 + (int(part.ljust(2, "0")) if dot else 0)
    return None if cents > MAX_AMOUNT else cents


def is_ots(body: str) -> bool:
    """Whether the JSON ``body`` is an Open Tournament Summary: the standard's ``{"ots": ...}`` object, or WPN's
    unwrapped one (the summary's own field ``tournament_finishes_and_winnings``); never an Open Hand History."""
    head = "".join(body[:200].split())
    if head.startswith('{"ohh"'):
        return False
    return '"ots"' in body[:200] or '"tournament_finishes_and_winnings"' in body


_WPN_NUMBER = re.compile(r"^T#(\d+)$")
"""WPN's ``tournament_number`` (``T#36074377``): the number its hands write ``Tournament #36074377``."""


def _read_ots(text: str, source: str) -> Summary | ReplayError:
    try:
        doc = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as exc:
        return HandSyntaxError(source, None, exc.lineno, f"not JSON at column {exc.colno}: {exc.msg}")
    ots = doc.get("ots", doc) if isinstance(doc, dict) else None  # the standard's wrapper, or WPN's bare object
    if not isinstance(ots, dict) or not isinstance(ots.get("tournament_finishes_and_winnings"), list):
        return HandSyntaxError(
            source, None, 1, 'expected {"ots": {... "tournament_finishes_and_winnings": [...]}} or the object bare'
        )
    rows: list[SummaryRow] = []
    try:
        for n, finish in enumerate(ots["tournament_finishes_and_winnings"]):
            if not isinstance(finish, dict):
                raise ValueError(f"tournament_finishes_and_winnings[{n}] is not an object")
            playing = bool(finish.get("still_playing"))
            if finish.get("finish_position") is None and not playing:
                raise ValueError(f"tournament_finishes_and_winnings[{n}] has no finish_position")
            place = finish.get("finish_position") or 0
            if isinstance(place, Decimal) and not (place.is_finite() and place.copy_abs() <= MAX_AMOUNT):
                raise ValueError(f"tournament_finishes_and_winnings[{n}].finish_position: {place} is beyond any field")
            place = int(place)
            prize = _money(finish.get("prize"), f"tournament_finishes_and_winnings[{n}].prize")
            ticket = _money(finish.get("ticket_value"), f"tournament_finishes_and_winnings[{n}].ticket_value")
            award = f"a ticket worth {ticket}" if ticket else ""
            rows.append(SummaryRow(place, str(finish.get("player_name")), 1, prize, "", playing, 1, award))
        pool = _money(ots.get("prize_pool"), "prize_pool")
        buy_in = _money(ots.get("buyin_amount"), "buyin_amount")  # the prize part: the fee and bounty are apart
    except ValueError as exc:
        return HandSyntaxError(source, None, 1, str(exc))
    count = ots.get("player_count") if isinstance(ots.get("player_count"), int) else None
    site = str(ots.get("site_name") or ots.get("network_name") or "").strip()
    number = str(ots.get("tournament_number")).strip()
    number = m.group(1) if (m := _WPN_NUMBER.match(number)) else number
    partial = count is not None and len(rows) < count  # the specification lists every entrant; this one does not
    return Summary(source, number, count, pool, tuple(rows), 1, "ots", site=site, partial=partial,
                   network=str(ots.get("network_name") or "").strip(), buy_in=buy_in)  # fmt: skip


def _money(value: Any, field: str) -> int | None:
    """An OTS amount in cents; ``None`` when absent; :class:`ValueError` naming ``field`` when it is no amount."""
    if value is None:
        return None
    try:
        cents = Decimal(value) * 100
    except Overflow:  # past the decimal context's exponents (1e999999): no amount
        raise ValueError(f"{field}: {value!r} {TOO_LARGE}") from None
    except (InvalidOperation, TypeError, ValueError):
        raise ValueError(f"{field}: {value!r} is not an amount") from None
    if cents.is_finite() and cents.copy_abs() > MAX_AMOUNT:  # before int(): '1e999999999' is a billion digits
        raise ValueError(f"{field}: {value!r} {TOO_LARGE}")
    if not cents.is_finite() or cents != cents.to_integral_value():
        raise ValueError(f"{field}: {value!r} is not a whole number of cents")
    return int(cents)
