"""What the text room readers share beyond the :class:`~.builder.HandBuilder`, written once, each room giving only
its words (its strings and regular expressions):

* :func:`split_hands`: a file split into hands at each room's first line (:func:`starting_with`,
  :func:`numbered_or_banner`), text before the first hand an error naming that line;
* the lines most rooms write alike: the seats (:func:`seats`, 888poker's and partypoker's button before them:
  :func:`button_and_seats`), ``Dealt to`` (:func:`dealt`), an uncalled bet returned (:func:`returned`), what a
  seat collected (:func:`collect_line`), the seated player a line is about or table news (:func:`actor`), the
  ``Total pot`` against the chips put in (:func:`check_total`);
* the words several rooms write the same are patterns of :mod:`.patterns`, one each;
* :func:`act`: the actions the rooms that write after PokerStars' fashion write alike (GGPoker, Winamax, ACR), and
  :func:`betting_line`: the rest of their betting's lines (an uncalled bet, ``Dealt to``, an action, table news);
* 888poker's and partypoker's stakes line (:func:`stakes_line`) and bracketed actions (:func:`bracketed`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    unreadable,
)
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import BRACKETED_SEAT, BUTTON_SEAT, CARDS, GAME_NO


class LineCount:
    """The 0-based line of each position of ``text`` asked for, in increasing order, by a running count: a file of
    many hands (Open Hand History documents, iPoker games) is counted once, never from its start for every hand.
    A position before the last one asked is counted from the start again (right, only slower)."""

    __slots__ = ("_at", "_line", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._at = 0
        self._line = 0
        """The 0-based line of ``_at``."""

    def line(self, position: int) -> int:
        """The 0-based line ``position`` is on."""
        if position < self._at:
            self._at = self._line = 0
        self._line += self._scan(self._at, position)
        self._at = position
        return self._line

    def _scan(self, start: int, end: int) -> int:
        """The line breaks from ``start`` to ``end``: the only text this reads."""
        return self._text.count("\n", start, end)


def split_hands(
    text: str,
    source: str,
    is_start: Callable[[list[str], int], bool],
    what: str,
    read: Callable[[list[str], int, int, str], HandRecord],
) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a text history file's ``text``, read by the room's ``read(lines, start, end, source)``, or the
    error that stopped it (the lines stripped, no byte-order mark, a no-break space a space): a hand starts at each
    line ``k`` where ``is_start(lines, k)``; text before the first (``what`` names the line a hand starts with) is an
    error of its own, and the hands after it are still read. A hand the reader fails on in a way it did not foresee
    (:func:`~.errors.unreadable`) is an error at its first line, and the next hand is read."""
    lines = [line.strip().replace("\xa0", " ") for line in text.replace("\ufeff", "").splitlines()]
    starts = [k for k in range(len(lines)) if is_start(lines, k)]
    first = next((k for k, line in enumerate(lines) if line), 0)
    if not starts or first < starts[0]:
        yield HandSyntaxError(source, None, first + 1, f"text before the first '{what}' line")
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        try:
            yield read(lines, start, end, source)
        except ReplayError as exc:
            yield exc
        except Exception as exc:  # hostile text the room's reader did not foresee: this hand's error
            yield unreadable(exc, source, None, start + 1)


def starting_with(
    prefix: str | tuple[str, ...], pattern: re.Pattern[str] | None = None
) -> Callable[[list[str], int], bool]:
    """The ``is_start`` of :func:`split_hands` for a room whose hands start with a line beginning ``prefix`` (and
    matching ``pattern``, when given)."""
    if pattern is None:
        return lambda lines, k: lines[k].startswith(prefix)
    return lambda lines, k: lines[k].startswith(prefix) and pattern.match(lines[k]) is not None


def numbered_or_banner(banner: re.Pattern[str]) -> Callable[[list[str], int], bool]:
    """The ``is_start`` of :func:`split_hands` for 888poker and partypoker: a hand starts at its ``#Game No : N``
    line (:data:`GAME_NO`), or at its ``banner`` (``***** ... Hand History for Game N *****``) when no such line
    comes just before."""
    return lambda lines, k: bool(
        GAME_NO.match(lines[k]) or (banner.match(lines[k]) and not (k and GAME_NO.match(lines[k - 1])))
    )


def act(
    hand: HandBuilder,
    name: str,
    action: str,
    k: int,
    *,
    room: str,
    blinds: tuple[str, ...],
    antes: tuple[str, ...],
    dead: tuple[str, ...] = (),
    suffixes: tuple[str, ...] = (" and is all-in",),
    quiet: tuple[str, ...] = (),
    quiet_lines: tuple[str, ...] = (),
) -> None:
    """One action of ``name`` as the rooms that write after PokerStars' fashion write it: ``calls X``, ``bets X``,
    ``raises X to Y``, ``checks``, ``folds``, ``shows [cards]``, ``mucks [cards]``.

    The room gives its words: the ``suffixes`` cut off the end, in turn (``and is all-in``); how a blind, an ante
    (not in the street's bet) and a dead blind (not live) begin, the amount last; how an action that moves no chips
    begins (``quiet``) or reads whole (``quiet_lines``). Any other action is an error naming the ``room``.
    """
    for suffix in suffixes:
        if action.endswith(suffix):
            action = action[: -len(suffix)]
    verb, _, rest = action.partition(" ")
    if action.startswith(blinds):
        words, _, amount = action.rpartition(" ")
        if words in _BLINDS:
            hand.post_blind(name, hand.chips(amount, k), k, big="big" in words)
        else:  # a straddle, the small and big blinds posted together (the small one dead): the reasons PokerStars' are
            hand.pay(name, hand.chips(amount, k), k)
            if (log := hand.play_log) is not None:
                both = "small & big" in words
                log.refuse("a dead small blind (posts small & big blinds)" if both else "a straddle or a button blind")
    elif action.startswith(antes):
        hand.pay(name, hand.chips(action.rsplit(" ", 1)[1], k), k, to_bet=False)
    elif action.startswith(dead):
        hand.pay(name, hand.chips(action.rsplit(" ", 1)[1], k), k, to_bet=False, is_dead=True)
    elif verb == "calls":
        hand.call(name, hand.chips(rest, k), k)
    elif verb == "bets":
        hand.pay(name, hand.chips(rest, k), k)
    elif verb == "raises":
        _, sep, to = rest.partition(" to ")
        if not sep:
            raise hand.error(HandSyntaxError, k, "expected 'raises X to Y'")
        hand.raise_to(name, hand.chips(to, k), k)
    elif verb == "checks":
        hand.check(name, k)
    elif verb == "folds":
        hand.fold(name, k)
    elif verb in ("shows", "mucks"):
        if shown := CARDS.findall(rest):
            hand.show(name, hand.card_list(shown[0], k), k)
        if verb == "mucks":
            hand.muck(name, k)
    elif not (action in quiet_lines or action.startswith(quiet)):
        raise hand.error(HandSyntaxError, k, f"not a {room} action")


_BLINDS = frozenset({"posts small blind", "posts the small blind", "posts big blind", "posts the big blind"})
"""The words of a small or big blind in :func:`act`'s rooms (the amount after them); any other blind words a room
gives are a straddle or a dead blind, which the hand's ``play`` does not write (:mod:`.room_play`)."""


def seats(hand: HandBuilder, k: int, end: int, pattern: re.Pattern[str], *, sitting_out: int = 0) -> int:
    """The seat lines from line ``k`` on, as long as they match ``pattern`` (group 1 the seat, 2 the name, 3 the
    stack; group ``sitting_out``, when given, says ``sitting out`` of a seat sitting out): the line after them.
    Fewer than two seats is an error."""
    while k < end and (seat := pattern.match(hand.lines[k])):
        out = bool(sitting_out) and "sitting out" in seat.group(sitting_out)
        hand.seat(int(seat.group(1)), seat.group(2), hand.chips(seat.group(3), k), k, sitting_out=out)
        k += 1
    hand.two_seats(k, end)
    return k


def button_and_seats(hand: HandBuilder, k: int, end: int, *, info: tuple[str, ...]) -> tuple[int | None, int]:
    """888poker's and partypoker's lines from the table's to the seats' end: ``Seat N is the button``
    (:data:`BUTTON_SEAT`) or table news (``info`` openings), then the seats (:data:`BRACKETED_SEAT`, :func:`seats`):
    the button (``None``: not written) and the line after the seats."""
    found = None
    while k < end and not BRACKETED_SEAT.match(hand.lines[k]):
        if b := BUTTON_SEAT.match(hand.lines[k]):
            found = int(b.group(1))
        elif hand.lines[k] and not hand.lines[k].startswith(info):
            raise hand.error(HandSyntaxError, k, "expected 'Seat N is the button' or the seats")
        k += 1
    return found, seats(hand, k, end, BRACKETED_SEAT)


def dealt(hand: HandBuilder, line: str, k: int, *, one_bracket: bool = False) -> None:
    """``Dealt to NAME [cards]``: the seat's own cards (every bracket's, or ``one_bracket``: the text after the name
    stripped of spaces and brackets); a name with no seat is an error."""
    rest = line[len("Dealt to ") :]
    who = hand.speaker(rest, " [")
    if who is None:
        raise hand.error(ImpossibleAction, k, "cards dealt to a player with no seat")
    cards = rest[len(who) :].strip(" []") if one_bracket else " ".join(CARDS.findall(rest[len(who) :]))
    hand.show(who, hand.card_list(cards, k), k)


def bracketed(hand: HandBuilder, name: str, verb: str, amount: str, k: int) -> int:
    """888poker's and partypoker's action of ``name`` with its chips in brackets (``calls [$1]``, ``raises [$6.37]``:
    the chips added; ``posts dead blind [$1 + $2]``: the small blind dead, the big blind live; ``posts ante``: not in
    the street's bet), ``amount`` the brackets' text: the live chips of it."""
    chips = hand.chips(amount.rsplit("+", maxsplit=1)[-1], k)
    if verb == "posts dead blind":
        dead = sum(hand.chips(part, k) for part in amount.split("+")[:-1])
        hand.pay(name, dead, k, to_bet=False, is_dead=True)
        hand.pay(name, chips, k)
    elif verb == "posts ante":
        hand.pay(name, chips, k, to_bet=False)
    elif verb in ("posts small blind", "posts big blind"):
        hand.post_blind(name, chips, k, big=verb == "posts big blind")
    elif verb == "calls":
        hand.call(name, chips, k)
    else:  # blinds, bets, raises and all-ins: the chips added
        hand.pay(name, chips, k)
    return chips


def check_total(hand: HandBuilder, total: int) -> None:
    """The room's ``Total pot`` is every chip the actions put in (live and dead, uncalled bets returned): else an
    error at the summary's line."""
    in_pots = sum(hand.put.values()) + sum(hand.dead.values())
    if in_pots != total:
        raise ChipsDoNotAddUp(
            hand.source,
            hand.hand_id,
            hand.total_line,
            f"the pots hold {in_pots} by the actions but 'Total pot' says {total}",
        )


def returned(hand: HandBuilder, line: str, k: int, pattern: re.Pattern[str]) -> bool:
    """Whether ``line`` returns an uncalled bet (``pattern``: group 1 the chips, group 2 the name); given back."""
    if m := pattern.match(line):
        hand.give_back(m.group(2), hand.chips(m.group(1), k), k)
        return True
    return False


def actor(hand: HandBuilder, line: str, k: int, *, info: tuple[str, ...], room: str, after: str = " ") -> str | None:
    """The seated player whose action ``line`` is (the name, then ``after``), or ``None`` for table news (a line
    holding one of ``info``); any other line is an error naming the ``room``."""
    who = hand.speaker(line, after)
    if who is None and not any(marker in line for marker in info):
        raise hand.error(HandSyntaxError, k, f"not a line of a {room} hand")
    return who


def betting_line(
    hand: HandBuilder,
    line: str,
    k: int,
    *,
    uncalled: re.Pattern[str],
    info: tuple[str, ...],
    room: str,
    act: Callable[[HandBuilder, str, str, int], None],
    after: str = " ",
    deal: Callable[[HandBuilder, str, int], None] = dealt,
) -> None:
    """A line of the betting as the rooms that write after PokerStars' fashion write it, once the room's own lines
    are read: an uncalled bet returned (:func:`returned`), ``Dealt to`` (``deal``), a seated player's action (the
    name, ``after``, the action: ``act(hand, name, action, k)``) or table news (:func:`actor`)."""
    if returned(hand, line, k, uncalled):
        return
    if line.startswith("Dealt to "):
        deal(hand, line, k)
        return
    if (who := actor(hand, line, k, info=info, room=room, after=after)) is not None:
        act(hand, who, line[len(who) + len(after) :], k)


def stakes_line(hand: HandBuilder, found: re.Match[str] | None, k: int, end: int, *, what: str) -> re.Match[str]:
    """888poker's and partypoker's line of the stakes and game at line ``k``, ``found`` by the room's patterns, else
    an error: the hand cut off after its first line (nothing, or a blank line, follows it), or ``expected``
    ``what``."""
    if found is None:
        if not any(hand.lines[hand.start + 1 : end]) or (k < end and not hand.lines[k]):
            raise hand.error(HandSyntaxError, hand.start, "the hand is cut off after its first line")
        raise hand.error(HandSyntaxError, min(k, end - 1), f"expected {what}")
    return found


def collect_line(hand: HandBuilder, line: str, k: int, pattern: re.Pattern[str], run: int = 0) -> int | None:
    """``NAME collected X from pot`` (``pattern``: group 1 the name, 2 the chips, 3 the pot: ``pot`` or ``main pot``
    the main pot, else a side pot numbered by group 4 from 1), of run ``run``: collected; the chips, or ``None`` when
    ``line`` is no such line."""
    m = pattern.match(line)
    if m is None:
        return None
    chips = hand.chips(m.group(2), k)
    index = 0 if m.group(3) in ("pot", "main pot") else int(m.group(4) or 1)
    hand.collect(m.group(1), chips, k, index, run)
    return chips


def headed_hand(
    lines: list[str], start: int, end: int, source: str, *, room: str, header: re.Pattern[str], what: str, at: int = 0,
    number: int = 1,
) -> tuple[HandBuilder, re.Match[str]]:  # fmt: skip
    """A hand starting at line ``start`` whose header, line ``start + at``, ``header`` matches (else an error:
    ``expected`` ``what``), and that header; the hand is named ``room:`` the header's group ``number`` (by its first
    line until the header is read)."""
    hand = HandBuilder(lines, source, f"{room}:{start + 1}", start)
    found = hand.expect(header, start + at, end, what)
    hand.hand_id = f"{room}:{found.group(number)}"
    return hand, found


def banner_hands(
    text: str,
    source: str,
    *,
    banner: re.Pattern[str],
    prefix: str,
    what: str,
    read: Callable[[HandBuilder, int], HandRecord],
) -> Iterator[HandRecord | ReplayError]:
    """888poker's and partypoker's hands (:func:`split_hands`): each starts at its ``#Game No : N`` line or its
    ``banner`` (:func:`numbered_or_banner`, ``what`` naming it), and is read by ``read(hand, end)`` with its builder
    named ``prefix:N`` (:func:`numbered_hand`), ``end`` the line after it."""

    def read_one(lines: list[str], start: int, end: int, source: str) -> HandRecord:
        return read(numbered_hand(lines, start, source, prefix=prefix, banner=banner), end)

    return split_hands(text, source, numbered_or_banner(banner), what, read_one)


def numbered_hand(lines: list[str], start: int, source: str, *, prefix: str, banner: re.Pattern[str]) -> HandBuilder:
    """888poker's and partypoker's hand starting at line ``start`` (its ``#Game No : N`` line or its ``banner``, as
    :func:`numbered_or_banner` found it), named ``prefix:N``."""
    m = GAME_NO.match(lines[start]) or banner.match(lines[start])
    assert m is not None  # split_hands starts a hand only at such a line
    return HandBuilder(lines, source, f"{prefix}:{m.group(1)}", start)


def xml_hands(
    text: str,
    source: str,
    room: str,
    opening: re.Pattern[str],
    read: Callable[[HandBuilder, ET.Element, tuple[int, int]], HandRecord],
    *,
    closing: str | None = None,
    id_attribute: str = "id",
    id_window: int = 200,
    clean: Callable[[str], str] = lambda element: element,
) -> Iterator[HandRecord | ReplayError]:
    """Each hand of an XML history whose hands are elements one after another (Boss Media's ``<HISTORY>``,
    Merge's ``<game>``, Microgaming's ``<Game>``), read by ``read``, or the error that stopped it: not well-formed
    XML named by line and column, anything else this hand's error, and the next hand read all the same.

    An element runs from ``opening`` to its ``closing`` tag (or the next opening, or the file's end); its hand id is
    ``<room>:<id_attribute>`` of the opening tag (within ``id_window`` characters), else its line. ``clean`` makes
    an element's text parseable (an entity the room writes, surrounding blanks); ``read`` also gets the positions
    of the previous element and this one (what a room writes between hands, as Merge's ``<description>``)."""
    body = text.replace("\ufeff", "")
    lines = body.splitlines()
    count = LineCount(body)
    starts = [m.start() for m in opening.finditer(body)]
    named = re.compile(rf'\b{id_attribute}="([^"]*)"')
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(body)
        if closing is not None and (close := body.find(closing, start)) >= 0:
            end = min(end, close + len(closing))
        line = count.line(start)
        head = named.search(body[start : min(end, start + id_window)])
        hand = HandBuilder(lines, source, f"{room}:{head.group(1) if head else line + 1}", line)
        try:
            element = ET.fromstring(clean(body[start:end]))  # noqa: S314  # expat refuses entity bombs
        except ET.ParseError as exc:
            at, column = exc.position
            yield HandSyntaxError(
                source, hand.hand_id, line + at, f"not well-formed XML at column {column + 1}: {exc.msg}"
            )
            continue
        except (ValueError, RecursionError) as exc:
            yield unreadable(exc, source, hand.hand_id, line + 1)
            continue
        try:
            yield read(hand, element, (starts[n - 1] if n else 0, start))
        except ReplayError as exc:
            yield exc
        except Exception as exc:  # a value of a kind the reader did not foresee: this hand's error
            yield unreadable(exc, source, hand.hand_id, hand.start + 1, hand.game_name)
