"""The betting of one hand, played action by action: who may act, what each action costs, what it leaves.

Why over 400 lines: one state machine with every rule it enforces beside it (each named with its source), and
the hand it leaves; split, the rules would be read apart from the state they guard.

Pure: values in, values out, no I/O. :func:`play` takes a hand in the Poker
Hand History standard's fields (phh-std, https://phh.readthedocs.io:
``variant``, ``antes``, ``blinds_or_straddles``, ``bring_in``, ``small_bet``,
``big_bet``, ``min_bet``, ``starting_stacks``, ``actions``) and returns the
:class:`Played` hand: each seat's contribution, folds and the street of each,
the uncalled bet, the stacks the betting leaves, the board, whether a flop
was seen. ``p<i>`` is the i-th player in the order the hand was played: p1
the small blind (heads-up, p1 the big blind and p2 the button), the highest
number the button.

A sequence that breaks a rule is refused with a :class:`BettingError` (an
:class:`~showdown_core.InvalidEvent`) naming the action's index, the player
and what was expected. The rules and their sources:

* ``out_of_turn``: betting goes clockwise from the seat after the big blind
  (preflop; heads-up the button) or after the button (later streets), each
  seat able to act acting in turn (TDA 2024 Rule 53, "Action in Turn"); a
  street is dealt once its betting is closed (phh-std's action order).
* ``raise_below_minimum``: a bet is at least the minimum bet and a raise at
  least the largest previous bet or raise of the round, unless all-in (TDA
  2024 Rule 43, "Raise Amounts"); fixed limit: a bet or raise is the street's
  bet size (Robert's Rules of Poker, "Betting and Raising" 3).
* ``raise_above_limit``: pot limit, no raise beyond the pot after the call
  (Robert's Rules, "Pot-Limit" 2); fixed limit, a bet and at most three raises
  a round (pokerkit's limit presets count four completions, bets or raises;
  Robert's Rules, "Betting and Raising" 6); no raise when every other seat in
  the hand is all-in (nobody could call it).
* ``betting_not_reopened``: an all-in for less than a full raise does not
  reopen the betting to a player who already acted and is not facing at least
  a full raise (TDA 2024 Rule 47, "Re-Opening the Bet"; in fixed limit at
  least half a bet reopens it). A check is no wager: the round's first bet,
  all-in for less or not, opens the betting to every seat.
* ``bet_beyond_stack``: nobody bets chips they do not have (table stakes,
  Robert's Rules, "Table Stakes" 1); a call for more than the stack is all-in.
* ``acted_after_fold`` and ``acted_after_all_in``: a folded hand is dead
  (TDA 2024 Rule 42's action and Robert's Rules, "Irregularities"); an all-in
  seat takes no more action.
* ``forced_bet_mismatch``: the forced bets are the declared ones: one ante,
  blind and stack per player, blinds rising (small blind, big blind,
  straddles: a straddle at least the big blind, TDA 2024 Rule 51?), a bring-in
  written with an amount equal to the declared ``bring_in``, the stakes the
  structure needs (``min_bet``; ``small_bet`` and ``big_bet`` in fixed limit;
  ``bring_in`` in stud, below the small bet).
* ``bad_board_street``: the flop is three cards, the turn one, the river one
  (TDA 2024 Rule 35's dealing; phh-std ``d db``); no board in stud or draw.
* ``bad_action``: text that is not phh-std's grammar (``pN f``, ``pN cc``,
  ``pN cbr AMOUNT``, ``pN pb``, ``pN sd [CARDS]``, ``pN sm [CARDS]``,
  ``d dh pN CARDS``, ``d db CARDS``).
* ``incomplete_play``: the actions end while a seat is still to act.

phh-std's ``cc`` is "check or call": a check facing a bet cannot be written
in it (``cc`` facing a bet is a call, and is played as one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import add, itemgetter, or_, sub
from typing import Final, Literal

from showdown_core.errors import InvalidEvent
from showdown_rules.cards import SPELLINGS
from showdown_rules.codes import Rejection

Limit = Literal["no_limit", "pot_limit", "fixed_limit"]
Family = Literal["board", "stud", "draw"]

LIMITS: Final[dict[str, Limit]] = {"N": "no_limit", "P": "pot_limit", "F": "fixed_limit"}
"""phh-std's betting letter, the first of a ``variant`` code."""
GAMES: Final[dict[str, tuple[str, Family, int]]] = {
    "T": ("holdem", "board", 0),
    "S": ("short_deck", "board", 0),
    "O": ("omaha", "board", 0),
    "O/8": ("omaha_hilo", "board", 0),
    "7S": ("stud", "stud", 0),
    "7S/8": ("stud_hilo", "stud", 0),
    "R": ("razz", "stud", 0),
    "2L1D": ("deuce_to_seven", "draw", 1),
    "2L3D": ("deuce_to_seven", "draw", 3),
    "B": ("badugi", "draw", 3),
    "5CD": ("five_card_draw", "draw", 1),
}
"""phh-std's game codes after the betting letter: ``(the event's variant, how it is dealt, draws)``."""
BOARD_STREETS: Final = ("preflop", "flop", "turn", "river")
STUD_STREETS: Final = ("third", "fourth", "fifth", "sixth", "seventh")
DRAW_STREETS: Final = ("predraw", "first_draw", "second_draw", "third_draw")
"""Draw games: the betting round before the first draw, then after each draw."""
FLOP_CARDS: Final = {0: 3, 3: 1, 4: 1}
"""Board cards a street deals, by the board's size before it (TDA 2024 Rule 35; phh-std ``d db``)."""
STREET_OF_BOARD: Final = {0: "flop", 3: "turn", 4: "river"}
MAX_FIXED_RAISES: Final = 4
"""Fixed limit: completions, bets and raises a round, the blinds not counted (pokerkit's limit presets)."""
MAX_ACTIONS: Final = 1000
"""Actions a hand may hold: ten seats, four rounds, a capped or all-in-bounded betting, with room to spare."""


@dataclass(frozen=True, slots=True)
class Form:
    """A phh-std ``variant`` code read: the betting structure and how the game is dealt."""

    code: str
    limit: Limit
    variant: str
    """The event's ``variant`` that settles it."""
    family: Family
    draws: int


def form_of(code: str) -> Form | None:
    """The :class:`Form` of a phh-std ``variant`` code (``NT``, ``PO``, ``F7S/8``, ``F2L3D``), or ``None``."""
    known = _FORMS.get(code)
    if known is not None:
        return known
    limit = LIMITS.get(code[:1])
    game = GAMES.get(code[1:])
    if limit is None or game is None:
        return None
    form = _FORMS[code] = Form(code, limit, *game)  # a few dozen codes at most: the standard's
    return form


_FORMS: dict[str, Form] = {}
"""Each code read so far (only valid ones are kept)."""


@dataclass(frozen=True, slots=True)
class Hand:
    """A hand's betting as phh-std writes it (the field names are the standard's)."""

    variant: str
    starting_stacks: tuple[int, ...]
    actions: tuple[str, ...]
    antes: tuple[int, ...] = ()
    """Empty: no antes."""
    blinds_or_straddles: tuple[int, ...] = ()
    """Empty: no blinds (stud)."""
    bring_in: int = 0
    small_bet: int = 0
    big_bet: int = 0
    min_bet: int = 0
    ante_trimming_status: bool = False
    """Antes count toward the seat's level (else they are dead money, the main pot's)."""


@dataclass(frozen=True, slots=True)
class Played:
    """What the betting of a hand leaves (tuples by player: index 0 is p1)."""

    form: Form
    contributed: tuple[int, ...]
    """Chips each seat put in that count toward its level, the uncalled bet included."""
    dead_money: tuple[int, ...]
    """Antes that count toward no level (``ante_trimming_status`` false)."""
    returned: tuple[int, ...]
    """The uncalled bet given back (one seat's at most)."""
    folded: tuple[bool, ...]
    """Folded, or mucked at the showdown (``pN sm`` without cards)."""
    folded_on: tuple[str | None, ...]
    """The street each seat folded on (``preflop``, ``flop``, ...; stud ``third``...; draw ``predraw``...)."""
    stacks: tuple[int, ...]
    """Each seat's chips once the betting is over and the uncalled bet is back, before the pots are awarded."""
    boards: tuple[tuple[str, ...], ...]
    """The board dealt (one run), or each run's; ``((),)`` in stud and draw."""
    hole_cards: tuple[tuple[str, ...] | None, ...]
    """Each seat's own cards when all were dealt or shown known (a draw game's as they stand), else ``None``."""
    saw_flop: bool
    """A board game whose flop was dealt with two or more seats in the hand (stud and draw: ``False``)."""

    @property
    def net_contributed(self) -> tuple[int, ...]:
        """``contributed`` less the uncalled bet returned."""
        return tuple(map(sub, self.contributed, self.returned))  # one entry a player each

    @property
    def board(self) -> tuple[str, ...]:
        """The first (or only) board."""
        return self.boards[0]


class BettingError(InvalidEvent):
    """An action (or the hand's forced bets) that breaks a betting rule: ``rule`` is the code, ``index`` the
    action's 0-based index (``None``: the hand's declared fields), ``player`` its 1-based player (``None``: the
    dealer or the hand)."""

    def __init__(  # noqa: PLR0917  # what the rejection says, and the reason alone
        self, rule: str, index: int | None, player: int | None, field: str, message: str, reason: str = ""
    ) -> None:
        super().__init__([Rejection(rule, field, message)])
        self.rule = rule
        self.index = index
        self.player = player
        self.reason = reason or message
        """What is wrong, without the field and action before it (a history reader names its own line)."""


_CARDS: Final = dict(SPELLINGS)


def card_run(text: str) -> list[str | None]:
    """The cards of a PHH deal (``d dh p1 AhKd``, ``d db 2c3d4h``): two-character cards run together, ``??`` a card
    not shown (``None``); :class:`ValueError` saying why for anything else. The PHH reader reads them so too."""
    if len(text) == 4:  # two own cards, the usual deal
        first, second = _CARDS.get(text[:2]), _CARDS.get(text[2:])
        if first is not None and second is not None:
            return [first, second]
    elif len(text) == 6:  # a flop
        known: list[str | None] = [_CARDS.get(text[:2]), _CARDS.get(text[2:4]), _CARDS.get(text[4:])]
        if None not in known:
            return known
    elif len(text) == 2:  # a turn or a river
        card = _CARDS.get(text)
        if card is not None:
            return [card]
    if len(text) % 2:
        raise ValueError(f"{text!r} is not a run of two-character cards")
    out: list[str | None] = []
    for j in range(0, len(text), 2):
        chunk = text[j : j + 2]
        if chunk == "??":
            out.append(None)
            continue
        card = _CARDS.get(chunk)
        if card is None:
            raise ValueError(f"{chunk!r} is not a card")
        out.append(card)
    return out


def play(hand: Hand, seats: Sequence[int] = ()) -> Played:
    """Play ``hand``'s actions and return what they leave; :class:`BettingError` on the first broken rule.

    ``seats``: each player's seat, to name it in messages (``p3 (seat 5)``); by default ``p3`` alone.
    """
    return Machine(hand, seats).run()


class Machine:
    """The state of a hand being played (indices are player number - 1).

    :func:`play` runs it over every action at once; a history reader that checks the cards as they are dealt
    plays it action by action instead (:meth:`act`, then :meth:`finish`), so that the readers and the worker
    judge the betting with the one state machine.
    """

    def __init__(self, hand: Hand, seats: Sequence[int] = ()) -> None:
        self.hand = hand
        n = self.n = len(hand.starting_stacks)
        self.seats = seats if len(seats) == n else ()
        form = form_of(hand.variant)
        if form is None:
            raise self._declared("variant", f"{hand.variant!r} is not a phh-std variant code (NT, PO, F7S, F2L3D...)")
        self.form = form
        self.fixed = form.limit == "fixed_limit"
        self.streets: tuple[str, ...] = _STREET_NAMES[form.family]
        """The names of the game's betting rounds, by :attr:`street`."""
        self._check_declared()
        self.left = list(hand.starting_stacks)
        self.put = [0] * n
        self.dead = [0] * n
        self.bet = [0] * n
        self.top = 0
        self.increment = 0
        """No-limit and pot-limit: the largest full bet or raise of the round (Rule 43's "previous bet or raise")."""
        self.raises = 0
        """Fixed limit: completions, bets and raises this round."""
        self.reopen_at: list[int | None] = [None] * n
        """Per seat that acted this round: the top bet that reopens the betting to it (Rule 47)."""
        self.folded = [False] * n
        self.mucked = [False] * n
        self.folded_on: list[str | None] = [None] * n
        self.hole: list[list[str | None]] = list(map(list, _NO_CARDS * n))  # n empty lists, each its own
        self.shown: list[list[str] | None] = [None] * n
        self.runs: list[list[str]] = [[]]
        self.shared = -1
        """Board cards every later run shares (``-1`` while the board is dealt once)."""
        self.street = 0
        self.closed = False
        """The round's betting is over; the next street is still to be dealt (board) or opened (stud, draw)."""
        self.drawing: list[int] = []
        self.saw_flop = False
        self.runout_from: int | None = None
        """The board's size when nobody could bet any more: every further run starts with those cards."""
        self.pending: list[int] = []
        self.optional: list[int] = []
        """Seats whose check may still be written though nobody can bet against them (:meth:`_trim_pending`)."""
        self._post_forced()

    # -- the declared fields ---------------------------------------------------------------

    def _declared(self, field: str, reason: str) -> BettingError:
        return BettingError("forced_bet_mismatch", None, None, f"play.{field}", f"play.{field}: {reason}", (
            f"{field} {reason}"
        ))  # fmt: skip

    def _check_declared(self) -> None:
        hand, n, form = self.hand, self.n, self.form
        antes, blinds_given = tuple(hand.antes), tuple(hand.blinds_or_straddles)  # hashable whatever a caller gave
        key = (form.code, n, antes, blinds_given, hand.bring_in, hand.small_bet, hand.big_bet, hand.min_bet)
        if key in _DECLARED:  # a table's hands declare the same forced bets and stakes, hand after hand
            return
        if not 2 <= n <= 10:  # the contract's players
            raise self._declared("starting_stacks", f"has {n} entries; a hand has 2 to 10 players")
        for name in ("antes", "blinds_or_straddles"):
            values: tuple[int, ...] = getattr(hand, name)
            if values and len(values) != n:
                raise self._declared(name, f"has {len(values)} entries for {n} players (one each, p1 first)")
            if values and min(values) < 0:
                raise self._declared(name, "holds a negative amount")
        blinds = [b for b in hand.blinds_or_straddles if b]
        if form.family == "stud":
            if blinds:
                raise self._declared("blinds_or_straddles", "are given in a stud game, which has a bring-in")
            if hand.bring_in <= 0:
                raise self._declared("bring_in", "is required in a stud game (a positive amount)")
        elif hand.bring_in:
            raise self._declared("bring_in", f"is given, but {form.variant} has blinds, not a bring-in")
        if form.limit == "fixed_limit":
            if hand.small_bet <= 0 or hand.big_bet < hand.small_bet:
                raise self._declared("small_bet", "and big_bet are required in fixed limit (0 < small_bet <= big_bet)")
            if form.family == "stud" and hand.bring_in >= hand.small_bet:
                raise self._declared("bring_in", f"{hand.bring_in} is not below the small bet {hand.small_bet}")
        elif hand.min_bet <= 0:
            raise self._declared("min_bet", f"is required in {form.limit.replace('_', ' ')} (a positive amount)")
        for k in range(1, len(blinds)):  # as written: small blind, big blind, straddles (heads-up too)
            if blinds[k] < blinds[k - 1]:
                raise self._declared(
                    "blinds_or_straddles",
                    f"{blinds[k]} follows {blinds[k - 1]}: each blind or straddle is at least the one before it",
                )
        if len(_DECLARED) >= _STEPS_KEPT:
            _DECLARED.clear()
        _DECLARED.add(key)

    def _post_forced(self) -> None:
        hand, n, form = self.hand, self.n, self.form
        antes = hand.antes or (0,) * n
        blinds = hand.blinds_or_straddles or (0,) * n
        if n == 2 and form.family != "stud":  # heads-up p1 is the big blind (phh-std)
            antes, blinds = antes[::-1], blinds[::-1]
        left = self.left
        into = self.put if hand.ante_trimming_status else self.dead
        for i, chips in enumerate(antes if any(antes) else ()):
            if chips:  # none is the usual ante
                paid = min(chips, left[i])
                left[i] -= paid
                into[i] += paid
        for i, chips in enumerate(blinds):
            if chips:  # most seats post no blind
                paid = min(chips, left[i])
                left[i] -= paid
                self.put[i] += paid
                self.bet[i] += paid
        self.can_bet = list(map(_POSITIVE, left))
        """Per seat: not folded and chips behind (it may still bet)."""
        self.top = max(self.bet)
        self.increment = max(hand.min_bet, self.top)
        if form.family == "stud":
            self.pending = []  # the first to act opens third street (phh-std writes who)
            self.closed = True
            return
        last_blind = n - 1 - self.bet[::-1].index(self.top) if self.top else n - 1  # the last of the highest
        self.pending = self._order_from((last_blind + 1) % n)
        if len(self.pending) == 1 and self.bet[self.pending[0]] >= self.top:
            self.pending = []  # everybody else all-in on the blinds: nobody faces a bet
        self.closed = not self.pending

    # -- helpers ---------------------------------------------------------------------------

    def _able(self, i: int) -> bool:
        return self.can_bet[i]

    def _order_from(self, first: int) -> list[int]:
        """The seats able to act, clockwise from ``first``; none when fewer than two could still bet (unless one
        of them faces a bet)."""
        order, pick = _ORDERS[self.n][first]
        able = list(compress(order, pick(self.can_bet)))  # [i for i in order if can_bet[i]], in C
        if self.folded.count(False) < 2:
            return []
        if len(able) < 2:  # one seat with chips: it acts only facing a bet
            return [i for i in able if self.bet[i] < self.top]
        return able

    def _street_name(self) -> str:
        return self.streets[self.street]

    def _bet_size(self) -> int:
        """Fixed limit: the street's bet (the small bet early, the big bet late)."""
        hand, family = self.hand, self.form.family
        big = self.street >= 2 if family in ("board", "stud") else self.street >= (2 if self.form.draws > 1 else 1)
        return hand.big_bet if big else hand.small_bet

    def _error(self, rule: str, k: int, i: int | None, action: str, reason: str) -> BettingError:
        who = f"p{i + 1} (seat {self.seats[i]}): " if i is not None and self.seats else ""
        return BettingError(rule, k, None if i is None else i + 1, f"play.actions[{k}]", (
            f"play.actions[{k}] {action!r}: {who}{reason}"
        ), reason)  # fmt: skip

    def _cards(self, text: str, k: int, action: str) -> list[str | None]:
        try:
            return card_run(text)
        except ValueError as exc:
            raise self._error("bad_action", k, None, action, str(exc)) from None

    # -- the play --------------------------------------------------------------------------

    def run(self) -> Played:
        actions = self.hand.actions
        if len(actions) > MAX_ACTIONS:
            raise BettingError(
                "bad_action",
                None,
                None,
                "play.actions",
                f"play.actions: {len(actions)} actions, more than {MAX_ACTIONS}",
            )
        act = self.act
        for k, action in enumerate(actions):
            act(k, action)
        return self.finish(len(actions))

    def act(self, k: int, action: str) -> None:
        """Play action ``k`` (``action``, phh-std's text); :class:`BettingError` if it breaks a rule."""
        i, verb, rest = _STEPS.get(action) or _read(action)
        if i == _DEALER:  # a deal: a third of a hand's actions
            dealt = _HOLE_DEALS.get(action)
            if dealt is not None and (j := dealt[0]) < self.n:  # two known own cards, the usual deal: _deal's
                self.hole[j] += dealt[1]  # each seat's own list (never shared)
                return
            self._deal(rest, k, action)
            return
        pending = self.pending
        if pending and pending[0] == i and not rest:  # the usual action: a check, call or fold in its turn
            if verb == "cc":  # _pay and _acted, inline: the hot path of every hand
                del pending[0]
                bet, top = self.bet, self.top
                chips = top - bet[i]
                if chips:  # a call (a check changes no chips: a seat to act has chips behind)
                    left = self.left[i]
                    if chips >= left:
                        chips = left
                        self.can_bet[i] = False
                    self.left[i] = left - chips
                    self.put[i] += chips
                    bet[i] += chips
                if self.fixed:
                    self._acted(i)
                else:  # _acted: the increment is never below min_bet (set to it each round, only raised)
                    self.reopen_at[i] = top + self.increment
                can_bet = self.can_bet
                if not pending or not can_bet[i]:
                    self.pending = [j for j in pending if can_bet[j]]
                    self._trim_pending()
                if not self.pending:
                    self.closed = True
                return
            if verb == "f":
                del pending[0]
                folded = self.folded
                folded[i] = True
                self.folded_on[i] = self.streets[self.street]
                can_bet = self.can_bet
                can_bet[i] = False
                if folded.count(False) < 2:
                    self.pending = []
                if can_bet.count(True) < 2:
                    self._trim_pending()
                if not self.pending:
                    self.closed = True
                return
        if verb in _BETS and i < self.n:
            self._bet(i, verb, rest, k, action)
        elif i == _NOBODY:
            raise self._error("bad_action", k, None, action, "is empty")
        elif i >= self.n:
            label = rest[0] if i == len(_PLAYERS) else f"p{i + 1}"
            raise self._error(
                "bad_action", k, None, action, f"{label!r} is not a player (p1 to p{self.n}) or the dealer (d)"
            )
        elif verb == "sm":
            self._show(i, list(rest), k, action)
        elif verb == "sd":
            self._draw(i, list(rest), k, action)
        else:
            raise self._error(
                "bad_action", k, i, action, "is not an action (f, cc, cbr AMOUNT, pb, sd [CARDS], sm [CARDS])"
            )

    def finish(self, count: int) -> Played:
        """What the hand's ``count`` actions, played, leave; ``incomplete_play`` if a seat is still to act."""
        if self.pending:
            i = self.pending[0]
            reason = f"the actions end while p{i + 1} is still to act ({self._street_name()})"
            raise BettingError("incomplete_play", count, i + 1, "play.actions", f"play.{reason[4:]}", reason)
        if self.drawing:
            i = self.drawing[0]
            reason = f"the actions end while p{i + 1} is to draw"
            raise BettingError("incomplete_play", count, i + 1, "play.actions", f"play.{reason[4:]}", reason)
        return self._played()

    @property
    def to_act(self) -> int | None:
        """The player index (0 for p1) whose betting action is awaited, or ``None`` (a deal, a draw, a new stud
        street's opener, or the end of the hand comes next)."""
        return self.pending[0] if self.pending else None

    @property
    def live(self) -> int:
        """Seats not folded (a muck at the showdown is not a fold)."""
        return self.folded.count(False)

    @property
    def able(self) -> int:
        """Seats that may still bet: not folded, chips behind."""
        return self.can_bet.count(True)

    def _played(self) -> Played:
        n = self.n
        put = self.put
        returned = [0] * n
        ranked = sorted(put, reverse=True)
        if ranked[0] > ranked[1]:  # one seat's bet nobody called goes back
            i = put.index(ranked[0])
            returned[i] = ranked[0] - ranked[1]
        stacks = tuple(map(add, self.left, returned))
        boards = tuple(map(tuple, self.runs)) if self.form.family == "board" else ((),)
        holes: tuple[tuple[str, ...] | None, ...] = tuple([
            tuple(shown) if shown else (tuple(held) if held and None not in held else None)  # type: ignore[arg-type]
            for shown, held in zip(self.shown, self.hole, strict=True)  # every card dealt known, or nothing said
        ])  # fmt: skip
        folded = self.folded
        return Played(
            self.form,
            tuple(put),
            tuple(self.dead),
            tuple(returned),
            tuple(map(or_, folded, self.mucked)) if True in self.mucked else tuple(folded),
            tuple(self.folded_on),
            stacks,
            boards,
            holes,
            self.saw_flop,
        )

    def _bet(self, i: int, verb: str, rest: tuple[str, ...], k: int, action: str) -> None:
        """``f``, ``cc``, ``cbr AMOUNT`` and a stud bring-in ``pb`` (:meth:`act` plays a fold, check or call in its
        turn itself)."""
        if self.folded[i]:
            raise self._error("acted_after_fold", k, i, action, f"p{i + 1} folded ({self.folded_on[i]}) and is out")
        if self.left[i] == 0:
            raise self._error("acted_after_all_in", k, i, action, f"p{i + 1} is all-in and takes no more action")
        if self.drawing:
            raise self._error("out_of_turn", k, i, action, f"p{self.drawing[0] + 1} is to draw (sd) first")
        if verb == "cc" and not self.pending and self.optional and self.optional[0] == i:
            del self.optional[0]  # a check nobody could bet against: nothing changes
            return
        if self.closed:
            self._open_street(i, verb, k, action)
        if not self.pending:
            raise self._error("out_of_turn", k, i, action, "no betting is open: the hand is over")
        if self.pending[0] != i:
            raise self._error("out_of_turn", k, i, action, f"p{self.pending[0] + 1} is to act, not p{i + 1}")
        form = self.form
        if verb == "pb":
            if form.family != "stud" or self.street or self.top:  # in stud, a bring-in out of its turn
                rule = "out_of_turn" if form.family == "stud" else "bad_action"
                raise self._error(rule, k, i, action, "a bring-in (pb) opens a stud hand's third street only")
            if rest and _amount(rest[0]) != self.hand.bring_in:
                raise self._error(
                    "forced_bet_mismatch", k, i, action, f"a bring-in of {rest[0]}; the declared bring_in is "
                    f"{self.hand.bring_in}"
                )  # fmt: skip
            self._pay(i, self.hand.bring_in)
            self.top = max(self.top, self.bet[i])
            self._acted(i)
            self.pending = [j for j in self._order_from((i + 1) % self.n) if j != i]
            self._close_if_done()
            return
        if verb in ("f", "cc") and rest:
            raise self._error("bad_action", k, i, action, f"'{verb}' takes no amount")
        del self.pending[0]
        if verb == "f":
            self.folded[i] = True
            self.folded_on[i] = self._street_name()
            self.can_bet[i] = False
            if self.folded.count(False) < 2:
                self.pending = []
            self._trim_pending()
        elif verb == "cc":
            self._pay(i, self.top - self.bet[i])
            self._acted(i)
            if self.left[i] == 0 or not self.pending:
                self.pending = [j for j in self.pending if self._able(j)]
                self._trim_pending()
        else:
            if len(rest) != 1 or (amount := _amount(rest[0])) is None:
                said = f"{rest[0]!r} is not a whole number of chips: " if len(rest) == 1 else ""
                raise self._error("bad_action", k, i, action, f"{said}a raise is 'cbr AMOUNT', the total bet it makes")
            self._raise(i, amount, k, action)
        self._close_if_done()

    def _raise(self, i: int, amount: int, k: int, action: str) -> None:
        """``cbr amount``: complete, bet or raise to ``amount`` this round (TDA 2024 Rules 43 and 47)."""
        form, hand = self.form, self.hand
        stack_bet = self.bet[i] + self.left[i]
        if amount > stack_bet:
            raise self._error(
                "bet_beyond_stack", k, i, action,
                f"a bet to {amount} needs {amount - self.bet[i]} chips; p{i + 1} has {self.left[i]} behind",
            )  # fmt: skip
        all_in = amount == stack_bet
        top, folded, left, bet = self.top, self.folded, self.left, self.bet
        for j in range(self.n):  # somebody else in the hand covers more than the bet now
            if j != i and not folded[j] and left[j] + bet[j] > top:
                break
        else:
            raise self._error(
                "raise_above_limit", k, i, action, "nobody left can call a raise: every other seat is all-in or covered"
            )
        if amount <= self.top and (not all_in or amount < self.top):
            raise self._error(
                "raise_below_minimum", k, i, action, f"a raise to {amount} does not raise the bet of {self.top}"
            )
        reopen = self.reopen_at[i]
        if reopen is not None and self.top < reopen:
            raise self._error(
                "betting_not_reopened", k, i, action,
                f"p{i + 1} already acted and faces no full raise (a short all-in does not reopen the betting, "
                f"TDA 2024 Rule 47): it may call or fold",
            )  # fmt: skip
        if form.limit == "fixed_limit":
            size = self._bet_size()
            completing = form.family == "stud" and self.street == 0 and self.top < hand.small_bet
            target = hand.small_bet if completing else self.top + size
            if self.raises >= MAX_FIXED_RAISES:
                raise self._error(
                    "raise_above_limit", k, i, action, f"the round is capped: {MAX_FIXED_RAISES} bets and raises made"
                )
            if amount > target:
                raise self._error("raise_above_limit", k, i, action, f"fixed limit: the raise is to {target}")
            if amount < target and not all_in:
                raise self._error("raise_below_minimum", k, i, action, f"fixed limit: the raise is to {target}")
            full = amount == target or amount - self.top >= (size + 1) // 2 or not self.top
            self.raises += 1
        else:
            least = self.top + max(self.increment, hand.min_bet)
            if amount < least and not all_in:
                raise self._error(
                    "raise_below_minimum", k, i, action,
                    f"the least {'raise' if self.top else 'bet'} is to {least} (TDA 2024 Rule 43)",
                )  # fmt: skip
            if form.limit == "pot_limit":
                pot = sum(self.put) + sum(self.dead) + (self.top - self.bet[i])
                most = self.top + pot
                if amount > most:
                    raise self._error(
                        "raise_above_limit", k, i, action, f"pot limit: the most is to {most} (the pot after the call)"
                    )
            full = amount >= least or not self.top  # the round's first bet, all-in or not: a check is no wager
            if full:
                self.increment = max(self.increment, amount - self.top)
        self._pay(i, amount - self.bet[i])
        self.top = max(self.top, amount)
        self._acted(i)
        if full:  # a full raise reopens the betting to everybody (Rule 47)
            reopen_at: list[int | None] = [None] * self.n
            reopen_at[i] = self.reopen_at[i]
            self.reopen_at = reopen_at
        pending = self._order_from((i + 1) % self.n)
        if pending and pending[-1] == i:  # clockwise from the next seat, the raiser comes last if at all
            pending.pop()
        self.pending = pending

    def _acted(self, i: int) -> None:
        """Seat ``i`` acted at the current bet: what would reopen the betting to it (Rule 47)."""
        if self.fixed:
            self.reopen_at[i] = self.top + (self._bet_size() + 1) // 2
        else:  # the increment is never below min_bet: set to it each round (to the blinds' at least), only raised
            self.reopen_at[i] = self.top + self.increment

    def _pay(self, i: int, chips: int) -> None:
        left = self.left[i]
        if chips >= left:
            chips = left
            self.can_bet[i] = False
        self.left[i] = left - chips
        self.put[i] += chips
        self.bet[i] += chips

    def _trim_pending(self) -> None:
        """Once fewer than two seats can bet, a seat still to act acts only facing a bet; one that does not may
        still write its check (``cc``, as pokerkit has it act), which changes nothing (:attr:`optional`)."""
        if self.can_bet.count(True) < 2:  # nobody left to bet against
            self.optional = [j for j in self.pending if self.bet[j] >= self.top]
            self.pending = [j for j in self.pending if self.bet[j] < self.top]

    def _close_if_done(self) -> None:
        if not self.pending:
            self.closed = True

    def _open_street(self, i: int, verb: str, k: int, action: str) -> None:
        """Stud: the first player action after a round's betting closed opens the next street (phh-std writes
        who opens it: the seat the up cards decide). Board and draw games deal or draw first."""
        family = self.form.family
        if self.folded.count(False) < 2 or self.can_bet.count(True) < 2:
            return  # the hand is over, or nobody can bet: the caller refuses the action
        if family == "board":
            name = STREET_OF_BOARD.get(len(self.runs[-1]))
            if name is None:
                raise self._error(
                    "out_of_turn", k, i, action, "the river's betting is over: the hand is at its showdown"
                )
            raise self._error("out_of_turn", k, i, action, f"the {name} is to be dealt (d db) before anybody acts")
        if family == "draw":
            raise self._error("out_of_turn", k, i, action, "the draw (pN sd) comes before the next betting round")
        started = self.street > 0 or self.top > 0 or any(self.reopen_at)
        if started:
            if self.street + 1 >= len(STUD_STREETS):
                raise self._error("out_of_turn", k, i, action, "seventh street's betting is over")
            self.street += 1
            self._new_round()
        if verb not in {"pb", "cbr"} and self.street == 0:  # a check is no bring-in: somebody must bet
            raise self._error("out_of_turn", k, i, action, "third street opens with the bring-in (pb) or a completion")
        self.closed = False
        self.pending = [i, *(j for j in self._order_from((i + 1) % self.n) if j != i)]

    def _new_round(self) -> None:
        self.optional = []
        self.bet = [0] * self.n
        self.top = 0
        self.increment = self.hand.min_bet
        self.raises = 0
        self.reopen_at = [None] * self.n

    def _deal(self, words: Sequence[str], k: int, action: str) -> None:
        if len(words) == 4 and words[1] == "dh":
            i = _PLAYERS.get(words[2], self.n)
            if i >= self.n:
                raise self._error("bad_action", k, None, action, f"{words[2]!r} is not a player (p1 to p{self.n})")
            self.hole[i] = self.hole[i] + self._cards(words[3], k, action)
            return
        if len(words) != 3 or words[1] != "db":
            raise self._error("bad_action", k, None, action, "is not a deal (d dh pN CARDS, d db CARDS)")
        if self.form.family != "board":
            raise self._error("bad_board_street", k, None, action, f"{self.form.variant} has no board")
        if self.pending:
            raise self._error(
                "out_of_turn", k, None, action, f"the board is dealt while p{self.pending[0] + 1} is still to act"
            )
        if self.folded.count(False) < 2:
            raise self._error("out_of_turn", k, None, action, "the board is dealt after the hand was won")
        cards = self._cards(words[2], k, action)
        if None in cards:
            raise self._error("bad_action", k, None, action, "board cards are dealt face up: none is unknown")
        board = self.runs[-1]
        if len(board) >= 5:  # another run of a complete board
            if self.can_bet.count(True) >= 2:
                raise self._error("bad_board_street", k, None, action, "the river was dealt: the board is complete")
            if self.shared < 0:
                self.shared = 5 if self.runout_from is None else self.runout_from
            board = self.runs[0][: self.shared]
            self.runs.append(board)
        expected = FLOP_CARDS[len(board)]
        if len(cards) != expected:
            raise self._error(
                "bad_board_street", k, None, action,
                f"deals {len(cards)} board card(s); the {STREET_OF_BOARD[len(board)]} is {expected}",
            )  # fmt: skip
        if len(self.runs) == 1:
            if self.can_bet.count(True) < 2 and self.runout_from is None:
                self.runout_from = len(board)
            if not board:
                self.saw_flop = True
            self.street += 1
        board += cards  # type: ignore[arg-type]  # no None: checked above
        self._new_round()
        self.pending = self._order_from(0)
        self.closed = not self.pending

    def _draw(self, i: int, rest: list[str], k: int, action: str) -> None:
        """``pN sd [CARDS]``: discard ``CARDS`` (stand pat without), p1 first (phh-std's draw order)."""
        form = self.form
        if form.family != "draw":
            raise self._error("bad_action", k, i, action, f"{form.variant} has no draw")
        if self.folded[i]:
            raise self._error("acted_after_fold", k, i, action, f"p{i + 1} folded ({self.folded_on[i]}) and is out")
        if not self.drawing:
            if self.pending:
                raise self._error(
                    "out_of_turn", k, i, action, f"p{self.pending[0] + 1} is still to act before the draw"
                )
            if self.street >= form.draws:
                raise self._error("out_of_turn", k, i, action, f"{form.variant} has {form.draws} draw(s)")
            self.street += 1
            self.drawing = [j for j in range(self.n) if not self.folded[j]]
        if self.drawing[0] != i:
            raise self._error("out_of_turn", k, i, action, f"p{self.drawing[0] + 1} draws first")
        del self.drawing[0]
        if len(rest) > 1:
            raise self._error("bad_action", k, i, action, "a draw is 'pN sd' or 'pN sd CARDS'")
        thrown = self._cards(rest[0], k, action) if rest else []
        held = self.hole[i]
        for card in thrown:
            if card in held:
                held.remove(card)
            elif None in held:
                held.remove(None)
            else:
                raise self._error(
                    "bad_action", k, i, action, f"p{i + 1} discards {card or 'an unknown card'}, which it does not hold"
                )
        if not self.drawing:
            self._new_round()
            self.pending = self._order_from(0)
            self.closed = not self.pending

    def _show(self, i: int, rest: list[str], k: int, action: str) -> None:
        if self.folded[i]:
            raise self._error("acted_after_fold", k, i, action, f"p{i + 1} folded and has nothing to show")
        if self.pending:
            raise self._error("out_of_turn", k, i, action, f"p{self.pending[0] + 1} is still to act")
        if not rest:
            self.mucked[i] = True
            self.folded_on[i] = "showdown"
            return
        if rest == ["-"]:
            return
        cards = self._cards("".join(rest), k, action)
        if None not in cards:
            self.shown[i] = [c for c in cards if c]


_STREET_NAMES: Final = {"board": BOARD_STREETS, "stud": STUD_STREETS, "draw": DRAW_STREETS}
_STEPS: dict[str, tuple[int, str, tuple[str, ...]]] = {}
"""Each action read, by its text (:func:`_read`): a table's hands repeat the same folds, calls, raises and deals."""
_STEPS_KEPT: Final = 65_536
_HOLE_DEALS: dict[str, tuple[int, tuple[str, str]]] = {}
"""The deals of two known own cards among :data:`_STEPS` (``d dh p2 AhKd``), by text: ``(player index, the two
cards)``, read once; emptied with it."""
_DECLARED: set[tuple[object, ...]] = set()
"""The declared fields found valid so far (:meth:`Machine._check_declared`), bounded as :data:`_STEPS` is: the
variant code, the player count, the antes, blinds and stakes."""
_DEALER: Final = -1
_NOBODY: Final = -2
_POSITIVE: Final = (0).__lt__
"""``chips > 0``."""
_NO_CARDS: Final[tuple[tuple[str, ...]]] = ((),)
_BETS: Final = frozenset(("f", "cc", "cbr", "pb"))
_PLAYERS: Final = {f"p{i + 1}": i for i in range(10)}
"""phh-std's player labels: ``p1`` is index 0."""
_ORDERS: Final = {
    n: [(order, itemgetter(*order)) for order in [[(first + s) % n for s in range(n)] for first in range(n)]]
    for n in range(2, 11)
}
"""Per player count, from each first player: the indices clockwise, and what picks a list's entries in that order."""


def _amount(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 16 else None


def _read(action: str) -> tuple[int, str, tuple[str, ...]]:
    """An action's ``(player index, verb, the words after the verb)``: the dealer's ``(_DEALER, "d", every word)``,
    an empty one's ``(_NOBODY, "", ())``, an unknown player's ``(10, "", (its label,))``; kept by text."""
    if len(_STEPS) >= _STEPS_KEPT:
        _STEPS.clear()
        _HOLE_DEALS.clear()
    words = (action.split("#", 1)[0] if "#" in action else action).split()
    if not words:
        step: tuple[int, str, tuple[str, ...]] = (_NOBODY, "", ())
    elif words[0] == "d":
        step = (_DEALER, "d", tuple(words))
        if len(words) == 4 and words[1] == "dh" and len(text := words[3]) == 4 and words[2] in _PLAYERS:
            first, second = _CARDS.get(text[:2]), _CARDS.get(text[2:])
            if first is not None and second is not None:
                _HOLE_DEALS[action] = (_PLAYERS[words[2]], (first, second))
    elif (i := _PLAYERS.get(words[0])) is None:
        step = (len(_PLAYERS), "", (words[0],))
    else:
        step = (i, words[1] if len(words) > 1 else "", tuple(words[2:]))
    _STEPS[action] = step
    return step
