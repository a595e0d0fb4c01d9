"""Read GGPoker (and Natural8, its skins) hand histories: cash games in cents, tournaments in chips.

The format follows PokerStars' with its own words: ``Poker Hand #RC1234:
Hold'em No Limit ($0.02/$0.05) - 2024/01/15 10:00:00`` (a tournament:
``Poker Hand #TM1234: Tournament #98765, NAME Hold'em No Limit - Level5(...)
- DATE``), ``Table 'NAME' 6-max Seat #1 is the button``, the seats (``Seat 1:
4f5a6b7c ($5 in chips)``: opponents' names are hashed), ``NAME: posts small
blind $0.02``, ``*** HOLE CARDS ***``, ``Dealt to NAME [cards]`` (or nothing
for an opponent), ``NAME: raises $0.10 to $0.15``, ``... and is all-in``,
``Uncalled bet ($0.51) returned to NAME``, the streets, ``*** SHOWDOWN ***``,
``NAME collected $9.90 from pot`` and ``*** SUMMARY ***`` with ``Total pot
$10.05 | Rake $0.10 | Jackpot $0.05 | Bingo $0 | Fortune $0 | Tax $0``.

GGPoker's quirks (docs/replay.md, GGPoker): amounts keep their thousands
separators (``$1,234.56``, ``1,500`` chips); the export writes a file's
hands newest first; the jackpot, Bingo, Fortune and Tax are taken from the
pot like the rake (the event's rake is their sum); a hand run twice or three
times writes ``*** FIRST FLOP ***`` ... ``*** SECOND SHOWDOWN ***``; PLO-5
and PLO-6 are ``PLO-5``/``PLO-6`` in the header, short deck ``ShortDeck``;
an All-in Insurance pays by the equity, not the showdown: ``unverifiable``
with the reason. An EV Cashout is read into the event's ``cashouts``
(docs/cashout.md): ``NAME: Chooses to EV Cashout`` gives the street (the
board then dealt), ``Pays Cashout Risk ($X)`` what the seat gave the house
of its run-out, ``Receives Cashout ($X)`` what the house paid it beyond its
run-out; the offer is what the seat ended with, at GGPoker's 1% fee, and
the settlement checks it against the exact equity. A cash-out whose street
or amount is not written stays ``unverifiable``, saying which.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from showdown_service.histories.builder import HandBuilder
from showdown_service.histories.currency import currency_code
from showdown_service.histories.errors import (
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
)
from showdown_service.histories.games import Game, room_game
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.patterns import (
    CARDS,
    CASHOUT_STREETS,
    RUN_SECTION,
    RUNS,
    STARS_SEAT,
    STREETS,
    TOURNAMENT_NUMBER,
    UNCALLED,
)
from showdown_service.histories.reader import Reader, opens_with
from showdown_service.histories.reading import (
    act,
    betting_line,
    check_total,
    collect_line,
    headed_hand,
    seats,
    split_hands,
    starting_with,
)
from showdown_service.histories.room_log import betting_limit, log_of, log_play, with_builder_play
from showdown_service.histories.stated import CashOutLine, with_cashouts, with_jackpot

START: Final = "Poker Hand #"
_HEADER = re.compile(r"^Poker Hand #(\w+):\s*(.*?)\s*(?:\(([^()]*/[^()]*)\))?\s*-\s*[\d/]+ [\d:]+\s*$")
_TABLE = re.compile(r"^Table '(.*)'.*?(?:Seat #(\d+) is the button)?\s*$")
_COLLECTED = re.compile(r"^(.+?) collected (\S+) from (pot|main pot|side pot(?:-? ?(\d+))?)\s*$")
_TOTAL = re.compile(r"^Total pot (\S+) \| Rake (\S+)((?: \| \w+ \S+)*)\s*$")
_EXTRA = re.compile(r" \| (\w+) (\S+)")
_OPENINGS: Final = frozenset({"HOLE CARDS", "SHOWDOWN", "SHOW DOWN"})
_INSURANCE: Final = ("All-in Insurance", "Insurance")
_CASHOUT: Final = re.compile(r"^(.+?): (Chooses to EV Cashout|Pays Cashout Risk|Receives Cashout)\s*(?:\((\S+)\))?\s*$")
FEE_PPM: Final = 10_000
"""GGPoker's EV Cashout fee: 1% of the hand's value (HD149101 fits it to the cent; docs/cashout.md)."""
_INFO: Final = (" joins the table", " leaves the table", " sits out", " is sitting out", " said,", "Hand was run ")


def read_ggpoker(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of a GGPoker hand history file's ``text``, read, or the error that stopped it."""
    return split_hands(text, source, starting_with(START), "Poker Hand #", _read)


def _read(lines: list[str], start: int, end: int, source: str) -> HandRecord:
    what = "'Poker Hand #ID: GAME (STAKES) - DATE'"
    hand, header = headed_hand(lines, start, end, source, room="ggpoker", header=_HEADER, what=what)
    log_play(hand)
    title = header.group(2).replace("PLO-5", "5 Card Omaha").replace("PLO-6", "6 Card Omaha").replace("PLO", "Omaha")
    game = hand.board_game(room_game(title.replace("ShortDeck", "Short Deck")), header.group(2), start, "GGPoker")
    tournament = TOURNAMENT_NUMBER.search(title)
    stakes = header.group(3) or ""
    currency = next((c for c in stakes if c in "$€£¥₹"), "")
    hand.scale = 1 if tournament or not (currency or "." in stakes) else 100
    table = hand.expect(_TABLE, start + 1, end, "\"Table 'NAME' ... Seat #N is the button\"")
    button = int(table.group(2)) if table.group(2) else None
    k = seats(hand, start + 2, end, STARS_SEAT, sitting_out=5)
    total = rake = None
    taken: list[str] = []
    run = 0
    in_summary = False
    cashing: dict[str, _Cashing] = {}
    jackpot: int | None = None
    for k in range(k, end):  # noqa: B020  # on from the line after the seats
        line = lines[k]
        if not line:
            continue
        if line.startswith("*** ") and (section := RUN_SECTION.match(line)):
            in_summary, run = _section(hand, game, section, k, in_summary=in_summary, run=run)
            continue
        if not in_summary and (cash := _CASHOUT.match(line)) and cash.group(1) in hand.players:
            _cash_line(hand, cashing, cash, len(hand.board), k)
            continue
        if any(word in line for word in _INSURANCE):
            reason = f"paid by equity, not by the showdown (All-in Insurance): {line!r}"
            code = currency_code(currency, tournament=tournament is not None)
            return HandRecord(source, hand.hand_id, start + 1, None, None, reason, False, game.name, currency_code=code)
        if in_summary:
            if m := _TOTAL.match(line):
                total, rake, jackpot = _totals(hand, m, k, taken)
            continue
        if collect_line(hand, line, k, _COLLECTED, run) is not None:
            continue
        betting_line(hand, line, k, uncalled=UNCALLED, info=_INFO, room="GGPoker", act=_act, after=": ", deal=_dealt)
    if total is None or rake is None:
        raise HandSyntaxError(source, hand.hand_id, end, "the hand has no 'Total pot ... | Rake' line", game.name)
    check_total(hand, total)
    note = f"taken from the pot beside the rake: {', '.join(taken)}" if taken else ""
    if cashing and (unknown := _unpriced(cashing)):
        code = currency_code(currency, tournament=tournament is not None)
        return HandRecord(source, hand.hand_id, start + 1, None, None, unknown, False, game.name, currency_code=code)
    if "/" in stakes:  # '$0.5/$1': the big blind, play's min_bet
        hand.big_blind = hand.chips(stakes.rpartition("/")[2], start)
    record = hand.finish(
        game, button, table.group(1), total=total, rake=rake, tournament=tournament.group(1) if tournament else None,
        currency=currency, room="GGPoker", note=note,
    )  # fmt: skip
    if cashing:  # the cash-out is judged by the settlement as stated; a hand with play must match its history whole
        log_of(hand).refuse("an EV Cashout (paid by equity: the hand's play is not written with it here)")
    record = with_builder_play(record, hand, betting_limit(header.group(2)), button)
    program = _PROGRAMS.get((game.variant, game.cards))  # PLO-5's bad beat is 8888: no program of it here
    blinds = stakes.replace(currency, "").split("/") if stakes else []
    # a cash table's drop for the bad beat; 'Jackpot $0' is not checked: the table may run no jackpot
    if jackpot and program and hand.scale == 100 and len(blinds) == 2:
        small, big = (hand.chips(blind, start) for blind in blinds)
        fund = f"ggpoker-bad-beat-{record.currency_code or 'cash'}"
        record = with_jackpot(record, program, fund, jackpot, (small, big))
    if not cashing:
        return record
    offers = [CashOutLine(hand.players[name].seat, c.street or "", c.net, FEE_PPM) for name, c in cashing.items()]
    return with_cashouts(record, offers)


def _section(
    hand: HandBuilder, game: Game, section: re.Match[str], k: int, *, in_summary: bool, run: int
) -> tuple[bool, int]:
    """A ``*** NAME ***`` line: the summary begins, a street (or a run's street) is dealt, the showdown (of a run)
    begins; ``(in_summary, run)`` after it."""
    again, name = section.group(1), section.group(2)
    if name == "SUMMARY":
        hand.total_line = k + 1
        return True, run
    if name in STREETS and game.board:
        cards = hand.card_list(" ".join(CARDS.findall(section.group(3))), k)
        if again:
            hand.deal_run(RUNS[again], cards, STREETS[name], k)
        else:
            hand.deal(cards, STREETS[name], k)
    elif name in ("SHOWDOWN", "SHOW DOWN"):
        run = RUNS[again] if again else 0
    elif name not in _OPENINGS:
        raise hand.error(HandSyntaxError, k, f"unknown section for {game.name}")
    return in_summary, run


def _totals(hand: HandBuilder, m: re.Match[str], k: int, taken: list[str]) -> tuple[int, int, int | None]:
    """The summary's ``Total pot ... | Rake ...`` line: the total, the rake with whatever else the room took from
    the pot beside it (each named in ``taken``), and the ``Jackpot`` figure among those (None: not written)."""
    total, rake = hand.chips(m.group(1), k), hand.chips(m.group(2), k)
    jackpot = None
    for label, amount in _EXTRA.findall(m.group(3)):
        if label == "Jackpot":
            jackpot = hand.chips(amount, k)
        if chips := hand.chips(amount, k):
            rake += chips
            taken.append(f"{label} {chips}")
    return total, rake, jackpot


def _dealt(hand: HandBuilder, line: str, k: int) -> None:
    """A ``Dealt to NAME [cards]`` line: the cards shown to the history's writer (an opponent's line: none)."""
    rest = line[len("Dealt to ") :]
    who = hand.speaker(rest + " ")
    if who is None:
        raise hand.error(ImpossibleAction, k, "cards dealt to a player with no seat")
    if dealt := CARDS.findall(rest[len(who) :]):
        hand.show(who, hand.card_list(" ".join(dealt), k), k)


_PROGRAMS: Final = {("holdem", 2): "ggpoker-bad-beat-holdem", ("omaha", 4): "ggpoker-bad-beat-plo"}
"""The jackpot program a GGPoker cash game's ``Jackpot`` figure is checked by (data/jackpot/): its Bad Beat
Jackpot's drop, 1 big blind from pots of 30 big blinds or more."""


class _Cashing:
    """One seat's EV Cashout as the lines tell it: when it chose to (``None``: not written) and what it was paid
    beyond its run-out (``Receives Cashout``) or paid back of it (``Pays Cashout Risk``, negative)."""

    __slots__ = ("net", "street", "written")

    def __init__(self) -> None:
        self.street: str | None = None
        self.net = 0
        self.written = False


def _cash_line(hand: HandBuilder, cashing: dict[str, _Cashing], match: re.Match[str], known: int, k: int) -> None:
    """``Chooses to EV Cashout`` (the street: the board then known), ``Pays Cashout Risk ($X)`` (the seat's hand won:
    it gives the house X of its run-out) or ``Receives Cashout ($X)`` (the house pays it X beyond its run-out)."""
    name, what, amount = match.group(1), match.group(2), match.group(3)
    seen = cashing.setdefault(name, _Cashing())
    if what == "Chooses to EV Cashout":
        if known not in CASHOUT_STREETS:
            raise hand.error(ImpossibleAction, k, "an EV Cashout on the river: no card is left to deal")
        seen.street = CASHOUT_STREETS[known]
        return
    if amount is None:
        raise hand.error(HandSyntaxError, k, f"expected '{what} ($AMOUNT)'")
    chips = hand.chips(amount.strip("()"), k)
    seen.net += chips if what == "Receives Cashout" else -chips
    seen.written = True


def _unpriced(cashing: dict[str, _Cashing]) -> str:
    """Why the hand's cash-outs cannot be checked (a street or an amount not written), or ``""``."""
    for name, seen in cashing.items():
        if not seen.written:
            return f"paid by equity, not by the showdown: {name}'s EV Cashout amount is not written"
        if seen.street is None:
            return (
                f"paid by equity, not by the showdown: {name}'s EV Cashout is paid, but the history does not say on "
                "which street it was taken ('Chooses to EV Cashout' is missing)"
            )
    return ""


def _act(hand: HandBuilder, name: str, action: str, k: int) -> None:
    """One action of ``name``.

    Beside PokerStars' words, GGPoker's cash tables write ``straddle $2`` (a live straddle), ``posts missed blind
    $0.5`` (the small blind missed: dead) and its Bet & Muck button: ``Bet & Muck $0.05`` (a bet) and, once
    called, ``Bet & Muck folds`` (the cards given up at the showdown: a fold).
    """
    mucked = action == _BET_AND_MUCK + "folds"  # once the betting is over: play writes a muck ('sm'), no fold
    if action.startswith(_BET_AND_MUCK):
        action = action[len(_BET_AND_MUCK) :]
        action = action if action == "folds" else f"bets {action}"
    act(
        hand, name, action, k, room="GGPoker",
        blinds=("posts small blind ", "posts big blind ", "posts straddle ", "straddle "),
        antes=("posts the ante ", "posts ante "),
        dead=("posts missed blind ",),
        quiet=("doesn't show", "sits out", "is sitting out"),
    )  # fmt: skip
    if mucked:
        del log_of(hand).actions[-1]


_BET_AND_MUCK: Final = "Bet & Muck "


READER: Final = Reader("ggpoker", opens_with("Poker Hand #"), read_ggpoker)
