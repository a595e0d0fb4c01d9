"""From what a text reader gathered to the :class:`~.hands.HandRecord` it hands to the comparison, for every room.

A reader (PokerStars, Full Tilt, 888, Winamax, ...) reads its own lines; the
chips it found (each seat's contribution, the pots as recorded, the total and
the rake) come here as a :class:`Read`, and :func:`record` runs the same
checks for every room, builds the worker's ShowdownEvent and the
:class:`~.hands.StarsOutcome` the comparison reads. A room that writes less
(no pot numbers, no rake, no uncalled bet) says so in the :class:`Read`
(``pooled``, ``note``) and the comparison checks what is written.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from showdown_core import InvalidEvent, SeatHand, build_pots
from showdown_core.settlement import rake_by_pot
from showdown_messages import SCHEMA_VERSION, ShowdownEvent
from showdown_rules.limits import MAX_PLAYERS, PPM
from showdown_service.histories.currency import currency_code
from showdown_service.histories.errors import ChipsDoNotAddUp, ImpossibleAction, UnsupportedHand
from showdown_service.histories.games import BOARD_SIZE, Game
from showdown_service.histories.hands import Bounty, HandRecord, Place, StarsOutcome, validated_event


class Player(NamedTuple):
    """A seat of the hand: its number, its player's name, its chips at the start."""

    seat: int
    name: str
    stack: int


class Where(NamedTuple):
    """Where a hand is, for its record and its errors."""

    source: str
    hand_id: str
    line: int
    """1-based line where the hand starts."""
    total_line: int
    """1-based line of the pot's totals (the summary), where a disagreement of the chips is reported."""
    table: str
    currency: str = ""
    code: str = ""
    """The currency's code when the history writes one (iPoker's ``<tablecurrency>``, OHH's ``currency``): it is
    preferred to the symbol (see :func:`~.currency.currency_code`)."""


class Read(NamedTuple):
    """Everything one pass over a hand's lines gathered, for :func:`record`."""

    game: Game
    tournament: str | None
    button: int | None
    seated: list[Player]
    put: dict[str, int]
    dead: dict[str, int]
    folded: set[str]
    mucked: set[str]
    cards: dict[str, list[str]]
    boards: list[list[str]]
    community: list[str]
    returned: dict[int, int]
    pots: dict[int, dict[int, int]]
    by_run: dict[int, dict[int, dict[int, int]]]
    summary: dict[int, int]
    total: int
    rake: int
    bounties: tuple[Bounty, ...]
    places: tuple[Place, ...]
    heads: dict[str, int] | None
    """Knockouts: the bounty on each head at the start of the hand (cents), by name."""
    cash_ppm: int | None
    note: str = ""
    """What the room does not write and the reader worked out (the rake, an uncalled bet), for the report."""
    pooled: bool = False
    """The room writes what each seat collected but not from which pot: ``pots`` holds one pot (index 0), the
    seats' totals, compared with the seats' totals over every pot of the rules."""
    chip: int = 1
    """The room's smallest chip (see :attr:`~.hands.StarsOutcome.chip`)."""
    rake_by_rule: bool = False
    """``rake`` is the room's published rule, not what the history left: what was collected need not add up to the
    total with it (the comparison shows the difference)."""


def record(hand: Read, where: Where) -> HandRecord:  # the checks, in the order they can fail
    """``hand`` checked (the chips add up, the boards are whole), as the event to settle and the outcome recorded."""
    game, seated = hand.game, hand.seated
    returned, uncalled, implied, note = _uncalled(hand, where)
    recorded = _recorded(hand, where)
    runs = len(hand.boards)
    per_run: tuple[tuple[dict[int, int], ...], ...] = ()
    if runs > 1 and hand.by_run:
        width = len(recorded)
        per_run = tuple(tuple(hand.by_run.get(r, {}).get(i, {}) for i in range(width)) for r in range(1, runs + 1))
    out = [p for p in seated if p.name not in hand.folded]
    showing = [p for p in out if p.name not in hand.mucked]
    unverifiable = _unverifiable(hand, where, out, showing)
    event = None
    groups: tuple[int, ...] = ()
    if not unverifiable:
        event, groups, note = _event(hand, where, showing, recorded, note)
    outcome = StarsOutcome(
        tuple(recorded),
        hand.summary,
        returned,
        uncalled,
        hand.rake,
        hand.total,
        groups,
        note,
        per_run,
        implied,
        hand.pooled,
        hand.chip,
    )
    return HandRecord(
        where.source, where.hand_id, where.line, event, outcome, unverifiable, len(out) > 1, game.name, hand.bounties,
        hand.places, where.currency,
        currency_code=currency_code(where.code or where.currency, tournament=hand.tournament is not None),
    )  # fmt: skip


def _uncalled(hand: Read, where: Where) -> tuple[dict[int, int], dict[int, int], bool, str]:
    """The bets returned (``hand.put`` less an uncalled bet an older history does not write), the bet the actions
    leave uncalled (by seat), whether it was implied (not written) and the note; the pots must hold the total."""
    seated, put = hand.seated, hand.put
    note, implied = hand.note, False
    returned = dict(hand.returned)
    gross = {p.seat: put[p.name] + returned.get(p.seat, 0) for p in seated}
    levels = sorted(gross.values(), reverse=True)
    top_seat = max(gross, key=lambda s: gross[s])
    uncalled = {top_seat: levels[0] - levels[1]} if levels[0] > levels[1] else {}
    in_pots = sum(put.values()) + sum(hand.dead.values())
    if in_pots != hand.total and not returned and uncalled and in_pots - uncalled[top_seat] == hand.total:
        # older histories (about 2008 and before) write no 'Uncalled bet ... returned' line: the bet the
        # actions leave uncalled is not in 'Total pot', which confirms it came back
        name = next(p.name for p in seated if p.seat == top_seat)
        put[name] -= uncalled[top_seat]
        returned = dict(uncalled)
        in_pots, implied = hand.total, True
        note = "the history writes no 'Uncalled bet' line (older format): the bet the actions leave came back"
    if in_pots != hand.total:
        raise ChipsDoNotAddUp(
            where.source,
            where.hand_id,
            where.total_line,
            f"the pots hold {in_pots} by the actions but 'Total pot' says {hand.total}",
            hand.game.name,
        )
    return returned, uncalled, implied, note


def _recorded(hand: Read, where: Where) -> list[dict[int, int]]:
    """The pots as recorded, main pot first (a pot not written: empty), checked: what was collected plus the rake
    is the total, the pots are numbered within a table's seats, the summary's amounts are the collected lines'."""
    pots, end, game = hand.pots, where.total_line, hand.game
    paid = sum(sum(pot.values()) for pot in pots.values())
    if paid + hand.rake != hand.total and not hand.rake_by_rule:
        raise ChipsDoNotAddUp(
            where.source,
            where.hand_id,
            end,
            f"{paid} collected plus {hand.rake} rake is not the total pot of {hand.total}",
            game.name,
        )
    if pots and not 0 <= min(pots) <= max(pots) <= MAX_PLAYERS:  # never a list of a million empty pots
        number = max(pots) if max(pots) > MAX_PLAYERS else min(pots)
        reason = f"pot {number}: a hand of at most {MAX_PLAYERS} seats has no pot numbered so"
        raise ChipsDoNotAddUp(where.source, where.hand_id, end, reason, game.name)
    recorded = [pots.get(i, {}) for i in range(max(pots, default=-1) + 1)]
    by_seat: dict[int, int] = {}
    for pot in recorded:
        for seat, chips in pot.items():
            by_seat[seat] = by_seat.get(seat, 0) + chips
    if hand.summary and any(by_seat.get(seat, 0) != chips for seat, chips in hand.summary.items()):
        raise ChipsDoNotAddUp(
            where.source,
            where.hand_id,
            end,
            f"the summary's amounts {hand.summary} are not the collected lines {by_seat}",
            game.name,
        )
    return recorded


def _unverifiable(hand: Read, where: Where, out: list[Player], showing: list[Player]) -> str:
    """Why the showdown cannot be settled (cards not known), or ``""``; a contested showdown on a board not whole,
    or a stud hand's card dealt face up to every player, is an error."""
    game, end = hand.game, where.total_line
    if len(out) > 1 and game.board and any(len(b) != BOARD_SIZE for b in hand.boards):
        sizes = " and ".join(str(len(b)) for b in hand.boards)
        raise ImpossibleAction(
            where.source,
            where.hand_id,
            end,
            f"{len(out)} players reach the showdown with {sizes} board cards",
            game.name,
        )
    if len(showing) > 1 and hand.community:
        raise UnsupportedHand(
            where.source,
            where.hand_id,
            end,
            f"the deck ran out and {hand.community[0]} was dealt face up to every player: a card in several "
            "hands, which a stud ShowdownEvent cannot hold",
            game.name,
        )
    unknown = [p.seat for p in showing if len(hand.cards.get(p.name, ())) != game.cards]
    if len(showing) > 1 and unknown:
        return f"unknown cards at a contested showdown (seat {', '.join(map(str, unknown))})"
    return ""


def _event(
    hand: Read, where: Where, showing: list[Player], recorded: list[dict[int, int]], note: str
) -> tuple[ShowdownEvent, tuple[int, ...], str]:
    """The hand's ShowdownEvent, for each recorded pot the index of the service's pot that holds it, and the note
    (with the rake rate recovered from the recorded pots, when the rake is not in proportion to them)."""
    game, seated, put = hand.game, hand.seated, hand.put
    players = [
        {
            "seat": p.seat,
            "player_id": p.name,
            "hole_cards": _own(hand.cards.get(p.name), game, p in showing),
            "contributed": put[p.name],
            "dead_money": hand.dead[p.name],
            "folded": p.name in hand.folded or p.name in hand.mucked,
            "stack": p.stack,
            **({"bounty": hand.heads[p.name]} if hand.heads is not None else {}),
        }
        for p in seated
    ]
    doc = {
        "schema_version": SCHEMA_VERSION,
        "hand_id": where.hand_id,
        "table_id": where.table,
        "tournament_id": hand.tournament,
        "variant": game.variant,
        "button_seat": hand.button,
        "players": players,
        "rake": hand.rake,
    }
    if hand.cash_ppm is not None:
        doc["bounty_cash_ppm"] = hand.cash_ppm
    if len(hand.boards) > 1:
        doc["boards"] = hand.boards
    else:
        doc["board"] = hand.boards[0]
    event = validated_event(doc, where.source, where.hand_id, where.line)
    seats = [SeatHand(p.seat, p.name, (), put[p.name], hand.dead[p.name], p.name in hand.folded) for p in seated]
    groups = _pot_groups(seats, mucked={p.seat for p in seated if p.name in hand.mucked})
    if hand.pooled:
        return event, (0,) * len(recorded), note
    if hand.rake and len(set(groups)) > 1:
        ours, _ = build_pots([s._replace(folded=s.folded or s.player_id in hand.mucked) for s in seats])
        net = [0] * len(ours)
        for index, pot in enumerate(recorded):
            if index < len(groups):
                net[groups[index]] += sum(pot.values())
        wanted = tuple(pot.amount - chips for pot, chips in zip(ours, net, strict=True))
        ppm = fit_rake_ppm([pot.amount for pot in ours], hand.rake, wanted)
        if ppm is not None:
            event = validated_event({**doc, "rake_ppm": ppm}, where.source, where.hand_id, where.line)
            rate = f"rake rate {ppm / PPM:.4%} recovered from the recorded pots"
            note = f"{note}; {rate}" if note else rate
    return event, groups, note


def _own(cards: list[str] | None, game: Game, showing: bool) -> list[str] | None:
    """A seat's own cards for the event: all of them at the showdown; a folded seat's only when complete."""
    if cards is None or len(cards) > game.cards:
        return None
    if not showing and len(cards) != game.cards:
        return None
    return cards


def _pot_groups(seats: list[SeatHand], mucked: set[int]) -> tuple[int, ...]:
    """For each pot PokerStars built (mucked seats still in), the index of the service's pot that holds it."""
    theirs, _ = build_pots(seats)
    groups: list[int] = []
    previous: tuple[int, ...] | None = None
    for pot in theirs:
        live = tuple(seat for seat in pot.eligible if seat not in mucked)
        if live != previous:
            groups.append(len(groups) and groups[-1] + 1)
            previous = live
        else:
            groups.append(groups[-1])
    return tuple(groups)


_STEPS: Final = (10_000, 5_000, 2_500, 1_000, 500, 250, 100, 50, 25, 10, 5, 1)
"""Rate granularities tried, coarsest first, in parts per million (1% down to 0.0001%)."""


def fit_rake_ppm(amounts: list[int], rake: int, wanted: tuple[int, ...]) -> int | None:
    """The roundest rate (ppm) with which ``rake_by_pot`` rakes ``wanted`` from pots of ``amounts``.

    ``None`` when the default (rake in proportion to the pots) already gives
    ``wanted``, or no rate does. Each pot but the last bounds the rate: the
    first k pots together gave round-half-even(rate x their chips).
    """
    if rake_by_pot(amounts, rake) == wanted:
        return None
    low, high = 0.0, 1.0
    chips = taken = 0
    for amount, chips_taken in zip(amounts[:-1], wanted[:-1], strict=True):
        chips += amount
        taken += chips_taken
        if chips:
            low, high = max(low, (taken - 0.5) / chips), min(high, (taken + 0.5) / chips)
    low = max(low, (rake - 0.5) / sum(amounts))
    for step in _STEPS:
        first = int(low * PPM) // step * step
        for ppm in range(first, min(int(high * PPM) + step, PPM) + 1, step):
            if ppm >= 0 and _gives(amounts, rake, ppm, wanted):
                return ppm
    return None


def _gives(amounts: list[int], rake: int, ppm: int, wanted: tuple[int, ...]) -> bool:
    try:
        return rake_by_pot(amounts, rake, ppm) == wanted
    except InvalidEvent:
        return False
