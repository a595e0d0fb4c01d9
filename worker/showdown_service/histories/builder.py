"""The chips of one hand as a text reader meets them, line by line, shared by the room readers.

A room's reader (888, Winamax, partypoker, Full Tilt, WPN) parses its own
lines and tells a :class:`HandBuilder` what each one means: a seat and its
stack, a blind, a bet, a raise (to a total or by an amount added), a fold,
the cards shown, the board, what a seat collected (from which pot when the
room says so), an uncalled bet returned, the total and the rake. The
builder checks the chips as they go (nobody puts in more than their stack,
a folded player does not act, a check faces no bet) and :meth:`finish`
hands the gathered :class:`~.record.Read` to :func:`~.record.record`, the
same checks and the same event as the PokerStars reader's.

What a room does not write, the builder works out and says so in the
record's note: the uncalled bet (the top contribution above the next one,
when one seat alone made it), the total pot (every chip put in less the
uncalled bet), the rake (the total less what was collected).

Given a log (:attr:`HandBuilder.play_log`, issue 36), the builder also logs the betting as it goes: a blind the
reader names as one (:meth:`HandBuilder.post_blind`), an ante, each call, check, fold, bet and raise (a payment is a
bet or raise to the seat's new bet when that tops the bet faced and another seat could call it, else a call), each
board card; :mod:`.room_log` gives the record its ``play``. Over 400 lines, deliberately: the chips of a hand and
the log of its betting are one walk through its lines, kept in one class.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, Protocol

from showdown_messages import canonical_card
from showdown_service.histories.chips import collected, give_back_to, pay_in
from showdown_service.histories.errors import (
    ChipsDoNotAddUp,
    HandSyntaxError,
    ImpossibleAction,
    ReplayError,
    UnsupportedHand,
)
from showdown_service.histories.games import Game
from showdown_service.histories.hands import MAX_AMOUNT, TOO_LARGE, Bounty, HandRecord, too_long
from showdown_service.histories.record import Player, Read, Where, record


class BettingLog(Protocol):
    """What the builder logs the betting into (:class:`~.room_play.PlayLog`'s fields and steps it uses)."""

    antes: dict[str, int]
    actions: list[tuple[str, str]]

    def refuse(self, why: str) -> None: ...

    def blind(self, name: str, chips: int, *, big: bool) -> None: ...


_NOT_AMOUNT: Final = re.compile(r"[^\d.,]")
"""Everything in an amount but digits and separators: currency symbols and codes, spaces (no-break too)."""
_AMOUNTS: dict[tuple[str, int], int] = {}
"""Amounts read so far (the text as written, the scale): a history writes the same few amounts again and again."""
_AMOUNTS_KEPT: Final = 65_536
_GROUPED: Final = re.compile(r"\d{1,3}(?:[.,]\d{3})*")


class HandBuilder:
    """One hand being read: the reader calls a method per line, then :meth:`finish`.

    ``lines`` are the file's lines (an error quotes the line at fault),
    ``k`` in every method the 0-based index of the line being read.
    """

    def __init__(self, lines: list[str], source: str, hand_id: str, start: int, scale: int = 100) -> None:
        self.lines = lines
        self.source = source
        self.hand_id = hand_id
        self.start = start
        self.scale = scale
        """Whole units per written unit: 100 for money (cents), 1 for chips."""
        self.game_name = ""
        self.players: dict[str, Player] = {}
        self.put: dict[str, int] = {}
        self.dead: dict[str, int] = {}
        self.bet: dict[str, int] = {}
        self.left: dict[str, int] = {}
        self.folded: set[str] = set()
        self.mucked: set[str] = set()
        self.acted: set[str] = set()
        self.sitting_out: set[str] = set()
        self.cards: dict[str, list[str]] = {}
        self.board: list[str] = []
        self.returned: dict[int, int] = {}
        self.pots: dict[int, dict[int, int]] = {}
        self.pooled = False
        self.summary: dict[int, int] = {}
        self.total_line = start + 1
        self.run_boards: dict[int, list[str]] = {}
        """A hand run more than once: each run's board (1: the first), from the board when the runs began."""
        self.by_run: dict[int, dict[int, dict[int, int]]] = {}
        self.big_blind = 0
        """The stakes' big blind, when the room's header says it: before the flop a call is to it even when the big
        blind was posted short (all-in for less: ``posts big blind [$0.03 USD]``, then ``calls [$0.25 USD]``)."""
        self._prefixes: dict[str, tuple[tuple[str, ...], list[str]]] = {}
        self.play_log: BettingLog | None = None
        """The betting as phh-std's ``play`` will write it, as the reader meets it: a reader that builds play gives a
        :class:`~.room_play.PlayLog` (:func:`~.room_log.log_play`); ``None``, nothing is logged."""

    # -- errors and amounts ---------------------------------------------------------

    def error(self, kind: type[ReplayError], k: int, reason: str) -> ReplayError:
        """``kind`` at line ``k`` of this hand, quoting the line."""
        return kind(self.source, self.hand_id, k + 1, f"{reason}: {self.lines[k]!r}", self.game_name)

    def chips(self, text: str, k: int) -> int:
        """An amount in whole units: ``$1,234.56``, ``3 023,50 $``, ``[$0.50 USD]``, ``0.25€`` -> 123456, 302350,
        50, 25 (cents) at scale 100; ``1500`` -> 1500 at scale 1.

        Currency symbols and codes and spaces go; a comma or a dot followed by
        exactly three digits separates thousands, followed by one or two it is
        the decimal point (888 and Winamax write ``3 023,50``).
        """
        known = _AMOUNTS.get((text, self.scale))
        if known is not None:
            return known
        raw = text.strip().strip("[]()").strip()
        clean = _NOT_AMOUNT.sub("", raw)
        whole, cents = clean, ""
        point = max(clean.rfind("."), clean.rfind(","))
        if point >= 0 and len(clean) - point - 1 in (1, 2):
            whole, cents = clean[:point], clean[point + 1 :]
        whole = whole.replace(",", "").replace(".", "") if _GROUPED.fullmatch(whole) else whole
        if self.scale == 1 and cents.strip("0") == "":
            cents = ""  # chips written with cents ('209570.00', WPN): whole chips
        if not whole.isdigit() or not (cents == "" or cents.isdigit()) or (cents and self.scale == 1):
            raise self.error(HandSyntaxError, k, f"{raw!r} is not an amount")
        if "-" in raw:
            raise self.error(HandSyntaxError, k, f"{raw!r} is negative: no stack or amount is below nothing")
        if too_long(whole) or (amount := int(whole) * self.scale + (int(cents.ljust(2, "0")) if cents else 0)) > (
            MAX_AMOUNT
        ):
            raise self.error(HandSyntaxError, k, f"{raw!r} {TOO_LARGE}")
        if len(_AMOUNTS) >= _AMOUNTS_KEPT:
            _AMOUNTS.clear()
        _AMOUNTS[text, self.scale] = amount
        return amount

    def expect(self, pattern: re.Pattern[str], k: int, end: int, what: str) -> re.Match[str]:
        """Line ``k`` of the hand (whose lines end before ``end``) matched by ``pattern``, else an error at that line
        (the hand's last when it has none): ``expected`` ``what``."""
        found = pattern.match(self.lines[k]) if k < end else None
        if found is None:
            raise self.error(HandSyntaxError, min(k, end - 1), f"expected {what}")
        return found

    def card_list(self, text: str, k: int) -> list[str]:
        """``Ah Kd`` / ``Ah, Kd`` / ``10d`` -> canonical cards; an unknown token is an error naming it."""
        out = []
        for token in text.replace(",", " ").split():
            card = canonical_card(token)
            if card is None:
                raise self.error(HandSyntaxError, k, f"{token!r} is not a card")
            out.append(card)
        return out

    # -- seats and chips --------------------------------------------------------------

    def seat(self, seat: int, name: str, stack: int, k: int, *, sitting_out: bool = False) -> None:
        """A seat line."""
        if name in self.players or any(p.seat == seat for p in self.players.values()):
            raise self.error(HandSyntaxError, k, f"seat {seat} ({name}) is listed twice")
        self.players[name] = Player(seat, name, stack)
        for book in (self.put, self.dead, self.bet):
            book[name] = 0
        self.left[name] = stack
        if sitting_out:
            self.sitting_out.add(name)

    def speaker(self, line: str, after: str = " ") -> str | None:
        """The seated player whose name opens ``line``, followed by ``after`` (the longest name first: ``Bob``
        must not take ``Bob 2: ...``), or ``None``."""
        prefixes = self._prefixes.get(after)
        if prefixes is None:
            ordered = sorted(self.players, key=len, reverse=True)
            prefixes = self._prefixes[after] = (tuple(n + after for n in ordered), ordered)
        if not line.startswith(prefixes[0]):
            return None
        return next(n for n, prefix in zip(prefixes[1], prefixes[0], strict=True) if line.startswith(prefix))

    def two_seats(self, k: int, end: int) -> None:
        """The seats are read up to line ``k``: fewer than two is an error there (the hand's last line, past it)."""
        if len(self.players) < 2:
            raise self.error(HandSyntaxError, min(k, end - 1), "a hand needs two seats; seat lines expected")

    def board_game(self, game: Game | None, written: str, k: int, room: str) -> Game:
        """The hand's ``game`` as the ``room``'s reader found it in the words ``written`` at line ``k``: ``None`` (no
        game this reader knows) is refused naming them, so is a stud or draw game (:meth:`refuse_unless_board`)."""
        if game is None:
            raise UnsupportedHand(self.source, self.hand_id, k + 1, f"no game this reader knows in {written!r}")
        self.game_name = game.name
        self.refuse_unless_board(game, room)
        return game

    def refuse_unless_board(self, game: Game, room: str) -> None:
        """Stud and draw games are read from PokerStars and PHH only: refused by name for the other rooms."""
        if not game.board:
            reason = f"{game.name} from {room}: stud and draw games of this room are not read yet"
            raise UnsupportedHand(self.source, self.hand_id, self.start + 1, reason, game.name)

    def player(self, name: str, k: int) -> str:
        """``name`` if it has a seat, else an error."""
        if name not in self.players:
            raise self.error(ImpossibleAction, k, f"{name!r} has no seat in this hand")
        return name

    def pay(self, name: str, chips: int, k: int, *, to_bet: bool = True, is_dead: bool = False) -> None:
        """``name`` puts ``chips`` in (live unless ``is_dead``; counted in the street's bet unless not ``to_bet``: an
        ante): logged as a bet or raise to the seat's new bet when it tops the bet faced and another seat could call
        it, else as a call (an all-in beyond what anybody left can match is a call, the rest an uncalled bet)."""
        top = max(self.bet.values())
        if not self.board and not self.run_boards:  # before the flop the bet faced is the stakes' big blind at least
            top = max(top, self.big_blind)  # (posted all-in short, it is still called in full: :meth:`call`)
        pay_in(self, self.player(name, k), chips, k, self.error, to_bet=to_bet, is_dead=is_dead)
        if (log := self.play_log) is None:
            return
        if is_dead:
            log.refuse("a dead blind")
        elif not to_bet:
            log.antes[name] = log.antes.get(name, 0) + chips
        elif self.bet[name] > top and any(
            self.left[n] + self.bet[n] > top for n in self.players if n != name and n not in self.folded
        ):
            log.actions.append((name, f"cbr {self.bet[name]}"))
        else:
            log.actions.append((name, "cc"))

    def post_blind(self, name: str, chips: int, k: int, *, big: bool) -> None:
        """``name`` posts the small (or ``big``) blind of ``chips``: live, in the street's bet, a forced bet."""
        pay_in(self, self.player(name, k), chips, k, self.error)
        short = big and not self.left[name] and chips < self.big_blind  # all-in for less: the stakes' blind declared
        if self.play_log is not None:
            self.play_log.blind(name, self.big_blind if short else chips, big=big)

    def call(self, name: str, chips: int, k: int) -> None:
        """A call of ``chips`` more: never above the bet faced (before the flop, at least the stakes' big blind)."""
        self.player(name, k)
        faced = max(self.bet.values())
        if not self.board and not self.run_boards:
            faced = max(faced, self.big_blind)
        if self.bet[name] + chips > faced:
            raise self.error(ImpossibleAction, k, f"{name} calls more than the bet")
        self.pay(name, chips, k)

    def check(self, name: str, k: int) -> None:
        """A check: only with no bet to face."""
        self.player(name, k)
        if self.bet[name] < max(self.bet.values()):
            raise self.error(ImpossibleAction, k, f"{name} checks facing a bet")
        self.acted.add(name)
        if self.play_log is not None:
            self.play_log.actions.append((name, "cc"))

    def raise_to(self, name: str, total: int, k: int) -> None:
        """A raise to ``total`` this street: above the bet faced."""
        self.player(name, k)
        if total <= max(self.bet.values()):
            raise self.error(ChipsDoNotAddUp, k, f"a raise to {total} over a bet of {max(self.bet.values())}")
        self.pay(name, total - self.bet[name], k)

    def fold(self, name: str, k: int) -> None:
        """A fold."""
        self.player(name, k)
        self.folded.add(name)
        if self.play_log is not None:
            self.play_log.actions.append((name, "f"))

    def street(self) -> None:
        """A new betting round: nobody has bet on it yet."""
        self.bet = dict.fromkeys(self.players, 0)

    def deal(self, cards: list[str], size: int, k: int) -> None:
        """The board grows to ``size`` cards by ``cards`` (the new ones, or the whole board written again)."""
        before = len(self.board)
        if len(cards) == size and cards[: len(self.board)] == self.board:
            self.board = cards
        elif len(self.board) + len(cards) == size:
            self.board = self.board + cards
        else:
            raise self.error(
                ImpossibleAction, k, f"{len(cards)} card(s) do not make a board of {size} from {self.board}"
            )
        self.street()
        if self.play_log is not None:
            self.play_log.actions.append(("", "db " + "".join(self.board[before:])))

    def deal_run(self, run: int, cards: list[str], size: int, k: int) -> None:
        """Run ``run``'s board grows to ``size`` cards (the new ones, or that run's whole board written again)."""
        if self.play_log is not None:
            self.play_log.refuse("a hand run more than once")
        board = self.run_boards.get(run, self.board)
        if len(cards) == size and cards[: len(board)] == board:
            self.run_boards[run] = cards
        elif len(board) + len(cards) == size:
            self.run_boards[run] = board + cards
        else:
            raise self.error(ImpossibleAction, k, f"{len(cards)} card(s) do not make a board of {size} from {board}")

    def show(self, name: str, cards: list[str], k: int) -> None:
        """``name``'s own cards, shown (a fuller list than the one known replaces it)."""
        self.player(name, k)
        if len(cards) >= len(self.cards.get(name, ())):
            self.cards[name] = cards

    def muck(self, name: str, k: int) -> None:
        """``name`` gave up at the showdown: out of the pots."""
        self.player(name, k)
        self.mucked.add(name)

    def collect(self, name: str, chips: int, k: int, pot: int | None = None, run: int = 0) -> None:
        """``name`` collected ``chips`` (from pot ``pot``: 0 the main pot; ``None`` when the room does not say; of
        run ``run`` of a hand run more than once)."""
        seat = self.players[self.player(name, k)].seat
        if pot is None:
            self.pooled, pot = True, 0
        collected(self, seat, chips, pot, run)

    def give_back(self, name: str, chips: int, k: int) -> None:
        """An uncalled bet of ``chips`` returned to ``name``."""
        give_back_to(self, self.player(name, k), chips, k, self.error)

    # -- the end ------------------------------------------------------------------------

    def finish(
        self,
        game: Game,
        button: int | None,
        table: str,
        *,
        total: int | None = None,
        rake: int | None = None,
        tournament: str | None = None,
        currency: str = "",
        code: str = "",
        uncalled_written: bool = True,
        room: str = "the room",
        rake_rule: Callable[[int, int], tuple[int, str]] | None = None,
        chip: int = 1,
        note: str = "",
        bounties: tuple[Bounty, ...] = (),
        heads: dict[str, int] | None = None,
        cash_ppm: int | None = None,
    ) -> HandRecord:
        """The hand, checked and recorded.

        ``total`` is the pot with its rake, uncalled bets not included
        (``None``: the room does not write it; every chip put in).
        ``rake`` ``None``: the room does not write it; the total less what
        was collected, which ``rake_rule(total, rake)`` (the room's published
        rake) may replace by the rake the rule takes, saying why: the
        comparison then shows what the history paid beyond the rule.
        ``bounties``: the knockout awards written; ``heads``: each player's bounty
        at the start (cents) with ``cash_ppm`` the part of a bounty paid in cash,
        for the settlement to award them too.
        ``uncalled_written`` false: the room never writes an
        uncalled bet; the bet the actions leave uncalled came back.
        ``currency``: the symbol the history writes; ``code``: the currency's code when it writes one.
        """
        self.refuse_unless_board(game, room)
        notes: list[str] = [note] if note else []
        by_rule = total is None  # the pot is the actions': a payout beyond it is the comparison's to show
        # a seat in the hand acts (a blind, a check, a fold...) or is dealt cards; one that does neither was not dealt
        # in (sitting out, no chips, waiting for the big blind), whether or not its seat line says so
        in_hand = [n for n in self.players if n in self.acted or n in self.folded or n in self.cards]
        if len(in_hand) < 2 and not any(any(pot.values()) for pot in self.pots.values()):
            reason = f"no hand was played: {len(in_hand)} seat in it (the others sit out) and nothing was collected"
            return HandRecord(self.source, self.hand_id, self.start + 1, None, None, reason, False, game.name)
        if len(in_hand) < 2:
            raise ImpossibleAction(
                self.source, self.hand_id, self.start + 1, f"{len(in_hand)} seat(s) in the hand", game.name
            )
        if all(n in self.folded or n in self.mucked for n in in_hand):
            # 'mucks' from the last player left (Full Tilt): not showing the cards, not giving up the pot
            winners = {
                self.players[n].seat for n in in_hand for pot in self.pots.values() if pot.get(self.players[n].seat)
            }
            self.mucked -= {n for n in in_hand if self.players[n].seat in winners}
        if not uncalled_written and not self.returned:
            gross = sorted(((self.put[n], n) for n in in_hand), reverse=True)
            if gross[0][0] > gross[1][0]:
                name = gross[0][1]
                self.give_back(name, gross[0][0] - gross[1][0], self.start)
                notes.append(f"{room} writes no uncalled bet: the bet the actions leave came back")
        in_pots = sum(self.put.values()) + sum(self.dead.values())
        paid = sum(sum(pot.values()) for pot in self.pots.values())
        if not uncalled_written and len(self.returned) == 1 and total is None:
            [(seat, back)] = self.returned.items()
            mine = sum(pot.get(seat, 0) for pot in self.pots.values())
            if paid + (rake or 0) > in_pots and mine >= back:
                # the uncalled bet is in the winner's 'collected' amount (everybody folded to it): taken out
                for index in sorted(self.pots, reverse=True):  # the last pot first: partypoker's 'side pot'
                    pot = self.pots[index]
                    taken = min(back, pot.get(seat, 0))
                    if taken:
                        pot[seat] -= taken
                        back -= taken
                    if not any(pot.values()) and index == max(self.pots) and index:
                        del self.pots[index]
                paid = sum(sum(pot.values()) for pot in self.pots.values())
                notes.append(f"{room} counts the uncalled bet in the winner's collected amount")
        if total is None:
            total = in_pots
        if rake is None:
            rake = total - paid
            if rake < 0:
                raise ChipsDoNotAddUp(
                    self.source, self.hand_id, self.total_line, f"{paid} collected from a pot of {total}", game.name
                )
            notes.append(f"{room} writes no rake: the pot less what was collected ({rake})")
            if rake_rule is not None:
                rake, why = rake_rule(total, rake)
                if why:
                    notes.append(why)
                    by_rule = True
        hand = Read(
            game, tournament, button, [self.players[n] for n in in_hand], self.put, self.dead,
            self.folded, self.mucked, self.cards, self._boards(game), [], self.returned,
            self.pots, self.by_run, self.summary, total, rake, bounties, (),
            {n: heads.get(n, 0) for n in in_hand} if heads is not None else None, cash_ppm, "; ".join(notes),
            self.pooled, chip,
            by_rule,
        )  # fmt: skip
        where = Where(self.source, self.hand_id, self.start + 1, self.total_line, table, currency, code)
        return record(hand, where)

    def _boards(self, game: Game) -> list[list[str]]:
        if not game.board:
            return [[]]
        if not self.run_boards:
            return [self.board]
        return [self.run_boards.get(run, self.board) for run in range(1, max(self.run_boards) + 1)]


RAKE_PERCENT: Final = 5
"""888poker's and partypoker's cash-game rake: 5% of the pot, rounded down to the cent, none when the hand ends before
the flop ('no flop, no drop'), capped by stakes (the caps are not in the history)."""
CAP_STEP: Final = 50
"""Every cap of those rake tables is a multiple of 50 cents ($0.50, $1, ... $5)."""


def no_flop_no_drop(board: int, room: str, total: int, derived: int) -> tuple[int, str]:
    """The rake a hand of ``total`` chips with ``board`` cards dealt is taken at 5%, no flop no drop, given what the
    history leaves (``derived``): that, when it is the 5% or a cap below it; else the 5% (before the flop: nothing),
    which the comparison then shows paid differently, with the reason."""
    most = total * RAKE_PERCENT // 100 if board else 0
    if derived == most or (derived < most and derived % CAP_STEP == 0):
        return derived, ""
    return most, f"the pot less what was collected is {derived}, which is not {room}'s rake of {most} (or a cap)"
