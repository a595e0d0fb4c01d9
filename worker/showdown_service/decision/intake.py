"""The boundary: wire payloads in, typed core values out.

Card text is parsed exactly once, here (the message model has already
canonicalised it, so each card is one dict lookup).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from operator import attrgetter
from typing import Final, NamedTuple

from pydantic import ValidationError

from showdown_core import BY_TEXT, DECK, VARIANTS, Card, InvalidEvent, SeatHand, Showdown, betting
from showdown_core import tournament_messages as core
from showdown_core.cashout import street_at
from showdown_core.model import CashOutOffer, from_fields
from showdown_messages import PlayerIn, ShowdownEvent, rejections
from showdown_messages import tournaments as contract
from showdown_messages.events import CashOutTaken, Play
from showdown_rules import PPM


def unwrap_event(text: str) -> str:
    """A JSON document holding a bare event, or an object with the event first, under ``"event"`` (the
    bundled cases), on one line or several.

    Returns the event's own JSON text, as written (so that a key it gives
    twice is still there to refuse); anything else is returned unchanged,
    for the validator to refuse with a precise reason.
    """
    inner = _wrapped(_EVENT_WRAPPER, text)
    return text if inner is None else inner


def tournament_body(text: str) -> str | None:
    """The message of a ``{"tournament": {...}}`` document (one line or several), as written, so that a key it
    gives twice is still there to refuse; ``None`` for any other document."""
    return _wrapped(_TOURNAMENT_WRAPPER, text)


def _wrapped(wrapper: re.Pattern[str], text: str) -> str | None:
    """The JSON object ``wrapper`` opens in ``text``, as written; ``None`` when it does not open one."""
    found = wrapper.match(text)
    if found is None:
        return None
    try:
        _, end = _JSON.raw_decode(text, found.end())
    except ValueError:
        return None
    return text[found.end() : end]


_EVENT_WRAPPER: Final = re.compile(r'\s*\{\s*"event"\s*:\s*(?=\{)')
_TOURNAMENT_WRAPPER: Final = re.compile(r'\s*\{\s*"tournament"\s*:\s*(?=\{)')
_JSON: Final = json.JSONDecoder()


def parse_event(payload: bytes | str) -> ShowdownEvent:
    """Validate one ShowdownEvent JSON document.

    Raises :class:`~showdown_core.InvalidEvent` carrying every rejection
    (code, field, message), the first being the most important.
    """
    try:
        return ShowdownEvent.model_validate_json(payload)
    except ValidationError as exc:
        raise InvalidEvent(rejections(exc, payload)) from None


_CARD_OF: Final = dict(BY_TEXT).__getitem__  # canonical text -> Card; a plain dict is the fastest lookup
_PAIRS: Final[dict[tuple[str, ...], tuple[Card, ...]]] = {
    (a.text, b.text): (a, b) for a in DECK for b in DECK if a is not b
}
_FIELDS_OF: Final = attrgetter("__dict__")
"""A model's fields as a dict (an event's players' in :func:`to_showdown`)."""
_TWO_CARDS: Final = _PAIRS.get
"""Two canonical card texts -> the two cards: a hold'em hand in one lookup (2,652 pairs)."""


def to_showdown(event: ShowdownEvent) -> Showdown:
    """The core's view of a validated event (its card text is canonical): no check is made again, but an event
    with a ``play`` has its betting played (:func:`played`), which may refuse it."""
    card, two, new = _CARD_OF, _TWO_CARDS, from_fields
    known = event.__dict__  # a model's fields, read as a dict: half the time of attribute loads
    boards, players = known["boards"], known["players"]
    hand = None if known["play"] is None else played(event)
    seats = [  # each player's fields read off its __dict__, as above
        new(
            SeatHand,
            (
                d["seat"],
                d["player_id"],
                (two(h) or tuple(map(card, h))) if (h := d["hole_cards"]) else (),
                d["contributed"],
                d["dead_money"],
                d["folded"],
                d["stack"],
            ),
        )
        for d in map(_FIELDS_OF, players)
    ]
    return new(
        Showdown,
        (
            known["hand_id"],
            known["table_id"],
            VARIANTS[known["variant"]],
            tuple(map(card, boards[0] if boards else known["board"])),
            known["button_seat"],
            tuple(seats),
            known["tournament_id"],
            known["rake"],
            known["rake_ppm"],
            tuple([tuple(map(card, board)) for board in boards]) if boards else (),
            tuple([p.bounty for p in players]) if players[0].bounty is not None else (),  # every seat's, or none
            known["bounty_cash_ppm"] if known["bounty_cash_ppm"] is not None else PPM,
            *(_NO_PLAY if hand is None else (known["play"].starting_stacks, hand.folded_on, hand.saw_flop)),
            (),  # rake_pots, rake_paid, rake_schedule: a rake schedule's (showdown_service.decision.rake_live)
            (),
            None,
            _offers(event, cashouts) if (cashouts := known["cashouts"]) else (),
            known["currency"],
        ),
    )


_NO_PLAY: Final = ((), (), None)
"""A Showdown's last fields for an event without ``play``: no starting stacks from it, no streets, no flop said."""


def played(event: ShowdownEvent) -> betting.Played:
    """Play ``event``'s ``play`` (:func:`showdown_core.betting.play`) and check that the event states what the
    actions give: each seat's ``contributed`` (the uncalled bet included or not), ``dead_money``, ``folded`` and
    ``stack``, the board(s), the button (the last player). Raises :class:`~showdown_core.InvalidEvent`: the broken
    rule's code, or ``betting_mismatch``, naming the field, the player (``p2``) and its seat."""
    play, players = event.play, event.players
    assert play is not None
    hand = _hand(play)
    seats, contributed, dead_money, folded, stacks = zip(*map(_SAID, players), strict=True)  # each a tuple, p1 first
    got = betting.play(hand, seats)
    # Each field one comparison of every seat's (an event that states what its actions give, the usual one); one
    # seat's uncalled bet at most is returned, so `contributed` as a whole is either figure or neither.
    if (
        (contributed != got.contributed and contributed != got.net_contributed)  # noqa: PLR1714  # net: if needed
        or dead_money != got.dead_money
        or folded != got.folded
        or not _stacks_as_played(stacks, play.starting_stacks)
    ):
        _first_mismatch(players, got, play.starting_stacks)  # which player and field differs
    if got.form.family == "board":
        stated = event.boards if event.boards is not None else (event.board,)
        if stated != got.boards:
            where = "boards" if event.boards is not None else "board"
            dealt = " then ".join("".join(b) or "none" for b in got.boards)
            _mismatch(where, f"is {' then '.join(''.join(b) or 'none' for b in stated)}; the actions deal {dealt}")
        last = seats[-1]
        if event.button_seat is not None and event.button_seat != last:
            button = f"the last player (the button, p{len(players)}) sits in {last}"
            _mismatch("button_seat", f"is {event.button_seat}; {button}")
    return got


_SAID: Final = attrgetter("seat", "contributed", "dead_money", "folded", "stack")
"""What a player states that its betting gives, for :func:`played` to compare every seat's at once."""


def _stacks_as_played(stacks: tuple[int | None, ...], starting_stacks: tuple[int, ...]) -> bool:
    """Each ``stack`` given is the player's ``play.starting_stacks``."""
    return stacks == starting_stacks or all(
        stack is None or stack == start for stack, start in zip(stacks, starting_stacks, strict=False)
    )


def _first_mismatch(players: tuple[PlayerIn, ...], got: betting.Played, starting_stacks: tuple[int, ...]) -> None:
    """Refuse the first player whose ``contributed``, ``dead_money``, ``folded`` or ``stack`` the actions do not
    give (``betting_mismatch``, naming the field, the player and its seat)."""
    contributed, net = got.contributed, got.net_contributed
    for i, p in enumerate(players):  # who is named (_Who) only in a refusal's message
        if p.contributed != contributed[i] and p.contributed != net[i]:
            who = _Who(i, p.seat)
            given = f"{contributed[i]}" + (f" ({net[i]} once its uncalled bet is back)" if got.returned[i] else "")
            _mismatch(f"players[{i}].contributed", f"is {p.contributed}; the actions give {who} {given}")
        if p.dead_money != got.dead_money[i]:
            who = _Who(i, p.seat)
            _mismatch(f"players[{i}].dead_money", f"is {p.dead_money}; the actions give {who} {got.dead_money[i]}")
        if p.folded != got.folded[i]:
            who = _Who(i, p.seat)
            says = "folded" if got.folded[i] else "still in the hand at the end"
            _mismatch(f"players[{i}].folded", f"is {str(p.folded).lower()}; the actions leave {who} {says}")
        if p.stack is not None and p.stack != starting_stacks[i]:
            who = _Who(i, p.seat)
            start = starting_stacks[i]
            _mismatch(f"players[{i}].stack", f"is {p.stack}; play.starting_stacks gives {who} {start}")


def _hand(play: Play) -> betting.Hand:
    """The core's view of an event's ``play``."""
    return betting.Hand(
        play.variant,
        play.starting_stacks,
        play.actions,
        play.antes,
        play.blinds_or_straddles,
        play.bring_in or 0,
        play.small_bet or 0,
        play.big_bet or 0,
        play.min_bet or 0,
        play.ante_trimming_status,
    )


def _offers(event: ShowdownEvent, cashouts: Sequence[CashOutTaken]) -> tuple[CashOutOffer, ...]:
    """The event's cash-outs, each at its street: the stated one, or the street of the play's action it names
    (:func:`showdown_core.cashout.street_at`, which refuses an action out of range, before the seat was all-in and
    called, or on another street than the stated one). The play was played whole before (:func:`played`)."""
    play, players = event.play, event.players
    hand = None if play is None else _hand(play)
    seats = [p.seat for p in players]
    offers = []
    for k, c in enumerate(cashouts):
        street: str | None = c.street
        if c.action is not None:
            assert hand is not None, "the contract refuses a cash-out by action without play"
            where = f"cashouts[{k}]"
            street = street_at(hand, seats.index(c.seat), c.action, seats=seats, where=where, stated=c.street)
        assert street is not None, "the contract refuses a cash-out naming no point"
        offers.append(CashOutOffer(c.seat, street, c.amount, c.fee_ppm, c.action))
    return tuple(offers)


class _Who(NamedTuple):
    """A player as a message names it (``p2 (seat 3)``), written only when a message is."""

    number: int
    """0 for p1."""
    seat: int

    def __str__(self) -> str:
        return f"p{self.number + 1} (seat {self.seat})"


def _mismatch(field: str, reason: str) -> None:
    raise InvalidEvent.of("betting_mismatch", field, reason)


def to_tournament_message(message: contract.AnyTournamentMessage) -> core.TournamentMessage:
    """The core's view of a validated tournament message (:mod:`showdown_core.tournament_messages`)."""
    tid = message.tournament_id
    if isinstance(message, contract.TournamentOpened):
        stage = message.mystery_bounties
        mystery = None
        if stage is not None:
            pool = tuple(core.MysteryEnvelopes(e.amount, e.count) for e in stage.envelopes)
            mystery = core.MysteryBounties(stage.from_entries_left, pool)
        return core.TournamentOpened(tid, tuple(message.payouts), message.bounty_cash_ppm, message.equal_stacks,
                                     message.hand_for_hand, message.satellite, mystery)  # fmt: skip
    if isinstance(message, contract.DealAgreed):
        entries = tuple(core.DealEntry(e.player_id, e.entry, e.amount) for e in message.entries)
        return core.DealAgreed(tid, message.method, entries, message.left_to_play_for)
    if isinstance(message, contract.EntryRegistered):
        return core.EntryRegistered(tid, message.player_id, message.entry, message.stack, message.bounty)
    if isinstance(message, contract.ChipsBought):
        return core.ChipsBought(tid, message.player_id, message.entry, message.purchase, message.kind, message.chips,
                                message.bounty)  # fmt: skip
    if isinstance(message, contract.RegistrationClosed):
        payouts = None if message.payouts is None else tuple(message.payouts)
        return core.RegistrationClosed(tid, payouts)
    return core.RoundComplete(tid, message.round)
