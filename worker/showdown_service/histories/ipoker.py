"""Read iPoker network hand histories: XML sessions, cash games in cents.

A file is one ``<session>``: its ``<general>`` names the game and stakes
(``<gametype>Holdem NL £0.50/£1</gametype>``) and the table
(``<tablename>Haalderen, 755803691</tablename>``); each ``<game
gamecode="N">`` is a hand: ``<player seat="1" name="..." chips="£99.66"
dealer="1" win="£15.05" bet="£10" />`` per seat (the stack at the start, all
that seat collected, all it put in), then ``<round no="0">`` (blinds and
antes), ``<round no="1">`` (the own cards, ``<cards type="Pocket"
player="...">D9 CK</cards>``, suit first, ``X`` for unknown) and the streets
(``<cards type="Flop">H3 C10 H9</cards>``), each with ``<action no="N"
player="..." type="T" sum="€0.20" />``. The actions are numbered across the
rounds and written grouped by player: the reader plays them in ``no``
order.

Action types: 0 fold, 1 small blind, 2 big blind, 3 call, 4 check, 5 bet,
7 all-in (the chips added), 8 sitting out, 15 ante, 23 raise (to a total
for the round). iPoker writes no rake and no uncalled bet, and a seat's
``win`` holds the bet nobody called: the rake is what was put in less what
was won (docs/replay.md, iPoker).

The betting is logged as it is played (:class:`~.room_play.PlayLog`, issue 36): a no-limit or pot-limit hand's
event carries phh-std's ``play``, so that the replay settles it with the betting played by the state machine; a
hand phh-std cannot express here (fixed limit, a blind posted out of position...) keeps none, and the log says why.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.errors import ChipsDoNotAddUp, HandSyntaxError, ReplayError, unreadable
from showdown_service.histories.games import room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import STREETS_TITLED
from showdown_service.histories.reader import Head, Reader
from showdown_service.histories.reading import LineCount
from showdown_service.histories.room_play import LIMITS, PlayLog, unplayable, with_play, without_play

_RANKS: Final = {"10": "T", "J": "J", "Q": "Q", "K": "K", "A": "A", **{str(n): str(n) for n in range(2, 10)}}
_SUITS: Final = {"S": "s", "H": "h", "D": "d", "C": "c"}
_GAME: Final = re.compile(r'<game gamecode="(\d+)"')
_FOLD, _SMALL, _BIG, _CALL, _CHECK, _BET, _ALL_IN, _SIT_OUT, _ANTE, _RAISE = 0, 1, 2, 3, 4, 5, 7, 8, 15, 23
_LIMITS: Final = {"NL": "no_limit", "PL": "pot_limit", "L": "fixed_limit", "FL": "fixed_limit"}
"""The betting a ``<gametype>`` names (``Holdem NL €0.05/€0.10``, ``Omaha PL``, ``Holdem L $5/$10``)."""


def read_ipoker(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand (``<game>``) of the iPoker XML sessions in ``text`` (an export may hold several, one after the
    other), read, or the error that stopped it."""
    body = text.replace("\ufeff", "")
    lines = body.splitlines()
    starts = [m.start() for m in re.finditer(r"<session[\s>]", body)]
    if not starts:
        yield HandSyntaxError(source, None, 1, "no iPoker <session> in the file")
        return
    count = LineCount(body)
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(body)
        chunk = re.sub(r"<\?xml[^>]*\?>\s*$", "", body[start:end])  # the next session's declaration
        where: dict[str, int] = {}  # each game's 0-based line, counted on from the session's (linear in the file)
        base = count.line(start)
        for m in _GAME.finditer(body, start, end):
            where[m.group(1)] = count.line(m.start())
        yield from _session(chunk, base, where, lines, source)


def _session(
    chunk: str, base: int, where: dict[str, int], lines: list[str], source: str
) -> Iterator[HandRecord | ReplayError]:
    """The hands of one ``<session>`` starting at 0-based line ``base`` of the file, each game at its line in
    ``where`` (by its code)."""
    try:
        # expat >= 2.4.1 (CPython's) refuses entity expansion bombs and ElementTree resolves no external entity
        session = ET.fromstring(chunk)  # noqa: S314
    except ET.ParseError as exc:
        line, column = exc.position
        yield HandSyntaxError(source, None, base + line, f"not well-formed XML at column {column + 1}: {exc.msg}")
        return
    except (ValueError, RecursionError) as exc:  # what expat reads but the tree cannot hold: this session's error
        yield unreadable(exc, source, None, base + 1)
        return
    gametype = session.findtext("general/gametype") or ""
    written = (session.findtext("general/tablecurrency") or session.findtext("general/currency") or "").strip()
    money = bool(written)
    table = (session.findtext("general/tablename") or "ipoker").split(",")[0].strip()
    version = re.match(r"\s*(\d+)\.", session.findtext("general/client_version") or "")
    unchecked = version is not None and int(version.group(1)) >= BET_UNCHECKED_SINCE
    for game in session.iter("game"):
        code = game.get("gamecode", "")
        hand = HandBuilder(lines, source, f"ipoker:{code}", where.get(code, base))
        try:
            yield _read(hand, game, gametype, table, money, unchecked=unchecked, code=written)
        except ReplayError as exc:
            yield exc
        except Exception as exc:  # a value of a kind the reader did not foresee: this game's error
            yield unreadable(exc, source, hand.hand_id, hand.start + 1, hand.game_name)


BET_UNCHECKED_SINCE: Final = 17
"""The client version (``<client_version>17.5.6.7</client_version>``, 2018) whose players' ``bet`` attribute is not
checked against the actions: it counts a re-raise's ``sum`` (the round's total, as everywhere) on top of what the
raiser had put in that round: h3llr4zor, big blind 1, calls 8 and re-raises all-in to 101.50 from a stack of
101.50, ``bet="€110.50"``. The actions read as totals agree with every stack and settle the ``win`` amounts exactly
(94 such hands of thlorenz/hhp-xml's 2018 sessions, each a reading error while the attribute was checked); the hand
says so in its note. Sessions without a version (HHSmithy's samples, 2014) are checked as before."""


def _read(
    hand: HandBuilder,
    game_xml: ET.Element,
    gametype: str,
    table: str,
    money: bool,
    *,
    unchecked: bool = False,
    code: str = "",
) -> HandRecord:
    game = hand.board_game(room_game(gametype), gametype, hand.start, "iPoker")
    currency = next((c for c in gametype if c in "$€£"), "")
    stakes = gametype.rsplit(maxsplit=1)[-1] if gametype.split() else ""
    hand.scale = 100 if currency or money or "." in stakes else 1
    k = hand.start
    button = None
    wins: dict[str, int] = {}
    bets: dict[str, int] = {}
    for player in game_xml.iterfind("general/players/player"):
        name, seat = player.get("name", ""), int(player.get("seat", "0"))
        hand.seat(seat, name, _amount(hand, player.get("chips", ""), k), k)
        wins[name] = _amount(hand, player.get("win", "0"), k)
        bets[name] = _amount(hand, player.get("bet", "0"), k)
        if player.get("dealer") == "1":
            button = seat
    if len(hand.players) < 2:
        raise hand.error(HandSyntaxError, k, "a hand needs two <player> seats")
    actions: list[tuple[int, int, str, int, int]] = []  # (no, round, player, type, chips)
    boards: dict[int, list[str]] = {}  # each street's new board cards, by round
    for round_xml in game_xml.iterfind("round"):
        street = max(int(round_xml.get("no", "0")), 1)  # round 0 (the blinds) bets with round 1 (the own cards)
        for item in round_xml:
            if item.tag == "action":
                number, kind = int(item.get("no", "0")), int(item.get("type", "-1"))
                actions.append((number, street, item.get("player", ""), kind, _amount(hand, item.get("sum", "0"), k)))
            elif item.tag == "cards":
                dealt, known = item.get("type", ""), _cards(hand, item.text or "", k)
                if dealt == "Pocket":
                    if known:
                        hand.show(hand.player(item.get("player", ""), k), known, k)
                elif dealt in STREETS_TITLED and game.board:
                    before = len(hand.board)
                    hand.deal(known, STREETS_TITLED[dealt], k)
                    boards[int(round_xml.get("no", "0"))] = hand.board[before:]
    # the streets were dealt above; the betting is replayed in 'no' order, a new round at each street's first action
    current = -1
    log = PlayLog()
    for number, street, name, kind, chips in sorted(actions):
        if street != current:
            if current >= 1:
                hand.street()
            current = street
            _deal(log, boards, street)
        faced = max(hand.bet.values())
        _act(hand, name, kind, chips, k, number=number)
        _log(log, hand, name, kind, chips, faced=faced)
    _deal(log, boards, max(boards, default=0))  # the streets dealt after the last action (all-in)
    wrong = {n: b for n, b in bets.items() if b != hand.put[n] + hand.dead[n]}
    note = ""
    if wrong and unchecked:
        note = "the 2018 client's 'bet' counts a re-raise on top of the round's bets: not checked"
    elif wrong:
        detail = ", ".join(f"{n} {b} (the actions: {hand.put[n] + hand.dead[n]})" for n, b in wrong.items())
        raise ChipsDoNotAddUp(
            hand.source, hand.hand_id, hand.start + 1, f"the players' 'bet' is not the actions': {detail}"
        )
    for name, chips in wins.items():
        if chips:
            hand.collect(name, chips, k)
    read = hand.finish(
        game, button, table, currency=currency, code=code, uncalled_written=False, room="iPoker", note=note
    )
    if read.event is None:
        return read
    words = gametype.split()
    limit = _LIMITS.get(words[1], "") if len(words) > 1 else ""
    big = _big_blind(hand, stakes, log, k)
    if limit in LIMITS and limit != "fixed_limit":  # fixed limit's stakes are its bets: with_play names it
        unplayable(log, read.event, big, button)
    event = with_play(read.event, log, limit, big, button, hand.source, hand.start + 1)
    return without_play(read, log) if event is None else read._replace(event=event)


def _deal(log: PlayLog, boards: dict[int, list[str]], street: int) -> None:
    """The board's cards of the rounds up to ``street`` not logged yet, each round's as one ``db``."""
    logged = sum(1 for name, what in log.actions if not name and what.startswith("db "))
    for number in sorted(boards)[logged:]:
        if number <= street:
            log.actions.append(("", "db " + "".join(boards[number])))


def _log(log: PlayLog, hand: HandBuilder, name: str, kind: int, chips: int, *, faced: int) -> None:
    """The action ``kind`` of ``name`` as phh-std writes it (``faced``: the round's bet before it)."""
    if kind in (_SMALL, _BIG):
        log.blind(name, chips, big=kind == _BIG)
    elif kind == _ANTE:
        log.antes[name] = log.antes.get(name, 0) + chips
    elif kind == _FOLD:
        log.actions.append((name, "f"))
    elif kind in (_CALL, _CHECK) or (kind != _SIT_OUT and hand.bet[name] <= faced):
        log.actions.append((name, "cc"))  # an all-in for no more than the bet faced is a call
    elif kind != _SIT_OUT:
        log.actions.append((name, f"cbr {hand.bet[name]}"))


def _big_blind(hand: HandBuilder, stakes: str, log: PlayLog, k: int) -> int | None:
    """The big blind of the stakes (``€0.05/€0.10``); a tournament's (``Holdem NL``: none written), the big
    blind posted, unless posted all-in (then short of the level's: ``None``)."""
    if "/" in stakes:
        return _amount(hand, stakes.rsplit("/", 1)[1], k)
    posted = log.big_blind
    if posted is None or log.blinds[posted] + log.antes.get(posted, 0) >= hand.players[posted].stack:
        return None
    return log.blinds[posted]


def _act(hand: HandBuilder, name: str, kind: int, chips: int, k: int, *, number: int) -> None:
    """The ``<action no=number type=kind sum=chips>`` of ``name``, taken by the builder."""
    hand.player(name, k)
    if kind in (_SMALL, _BIG, _BET, _ALL_IN):
        hand.pay(name, chips, k)
    elif kind == _ANTE:
        hand.pay(name, chips, k, to_bet=False)
    elif kind == _CALL:
        hand.call(name, chips, k)
    elif kind == _RAISE:
        hand.raise_to(name, chips, k)
    elif kind == _CHECK:
        hand.check(name, k)
    elif kind == _FOLD:
        hand.fold(name, k)
    elif kind != _SIT_OUT:
        raise hand.error(HandSyntaxError, k, f"action no={number} of {name}: unknown type {kind}")


def _amount(hand: HandBuilder, text: str, k: int) -> int:
    return hand.chips(text, k)


def _cards(hand: HandBuilder, text: str, k: int) -> list[str]:
    """``D9 CK H10`` (suit first) -> ``9d Kc Th``; ``X X`` (unknown) -> ``[]``."""
    out = []
    for token in text.split():
        if token == "X":  # noqa: S105  # an unknown card, not a password
            return []
        rank, suit = _RANKS.get(token[1:]), _SUITS.get(token[:1].upper())
        if rank is None or suit is None:
            raise hand.error(HandSyntaxError, k, f"{token!r} is not a card")
        out.append(rank + suit)
    return out


def _detect(head: Head) -> bool:
    """An XML file with a ``<session`` in its first 4,000 characters."""
    return head.line.startswith("<") and "<session" in head.text[:4000]


READER: Final = Reader("ipoker", _detect, read_ipoker)
