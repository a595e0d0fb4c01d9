"""A generated multi-table tournament, as a card room's servers would publish it: the JSON lines of its
messages and hands, in stream order.

Registration with re-entries, many tables re-balanced as players bust,
all-in confrontations with side pots and (sometimes) folded blinds,
hand-for-hand rounds on the bubble, progressive (or fixed) knockout bounties,
a final-table deal and a mystery-bounty stage when asked, to one winner. The
generator plays the game server: it settles each hand with the core to know
the stacks and heads the next hand starts with (and draws the mystery
envelopes, as the room does), and says nothing of places or prizes (that is
the ledger's job, which the tests and benchmarks check against it).

Deterministic for a seed. Used by the end-to-end tests, the chaos run, the
benchmark and the demo; ``showdown tournament replay`` settles its output.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from showdown_core import DECK, settle
from showdown_messages import ShowdownEvent
from showdown_service.decision.intake import to_showdown

TABLE_SIZE = 9


@dataclass(slots=True)
class _Player:
    player_id: str
    entry: int
    chips: int
    bounty: int
    purchases: int = 0


@dataclass(slots=True)
class Simulation:
    """The lines of one tournament and what the generator knows of it."""

    tournament_id: str
    lines: list[bytes] = field(default_factory=list)
    entries: int = 0
    hands: int = 0
    rounds: int = 0
    bounties_put_up: int = 0
    purchases: int = 0
    """Rebuys and add-ons (``chips`` messages)."""
    deals: int = 0
    envelopes_drawn: int = 0
    mystery_pool: int = 0
    """The money in the mystery-bounty envelopes (0: no stage)."""


def simulate(
    seed: int,
    *,
    tournament_id: str = "MTT-1",
    players: int = 60,
    reentries: int = 10,
    stack: int = 10_000,
    bounty: int | None = 500,
    bounty_cash_ppm: int = 500_000,
    paid_fraction: float = 0.15,
    buy_in: int = 1_000,
    hand_for_hand: bool = True,
    quiet_hands: int = 2,
    equal_stacks: str | None = None,
    hand_for_hand_rule: str = "by_stack",
    satellite: bool = False,
    rebuys: int = 0,
    deal_at: int = 0,
    deal_method: str = "icm",
    mystery_from: int = 0,
) -> Simulation:
    """Generate a tournament of ``players`` entrants (and up to ``reentries`` re-entries while registration is
    open) to one winner. ``bounty`` None: no bounties. ``quiet_hands``: hands without an all-in between each
    confrontation at a table (the usual hand, for benchmarks). ``equal_stacks`` (None: chosen by the seed),
    ``hand_for_hand_rule`` and ``satellite`` are the tournament's settings; a satellite pays equal seats.
    ``rebuys``: up to that many rebuys by short stacks while registration is open (each buys ``stack`` chips and,
    in a knockout, half a bounty), and then an add-on for some of those left as it closes (0: neither).
    ``deal_at``: once at most that many entries are left, all in the money, they agree a ``deal_method`` deal
    (sometimes keeping money back for the winner; not in a satellite; 0: no deal). ``mystery_from``: a
    mystery-bounty stage from that many entries in play, each elimination drawing an envelope (0: none)."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible game, not a secret
    sim = Simulation(tournament_id)
    ko = bounty is not None

    def emit(kind: str, doc: dict[str, Any]) -> None:
        sim.lines.append(orjson.dumps({kind: doc}))

    def message(message_type: str, **fields: Any) -> None:
        emit("tournament", {"schema_version": 1, "type": message_type, "tournament_id": tournament_id, **fields})

    mystery: dict[int, int] = {}
    """Envelopes left in the pool, by amount."""
    extra: dict[str, Any] = {}
    if mystery_from:
        mystery = {buy_in * 20: 1, buy_in * 2: mystery_from // 2 + 1, max(1, buy_in // 4): mystery_from}
        sim.mystery_pool = sum(a * c for a, c in mystery.items())
        extra["mystery_bounties"] = {
            "from_entries_left": mystery_from,
            "envelopes": [{"amount": a, "count": c} for a, c in mystery.items()],
        }
    message(
        "open",
        payouts=[],
        bounty_cash_ppm=bounty_cash_ppm if ko else None,
        equal_stacks=equal_stacks or rng.choice(["tie", "seat_order"]),
        hand_for_hand=hand_for_hand_rule,
        satellite=satellite,
        **extra,
    )
    entries: dict[str, int] = {}
    live: list[_Player] = []

    def enter(player_id: str) -> None:
        number = entries.get(player_id, 0) + 1
        entries[player_id] = number
        head = bounty or 0
        fields: dict[str, Any] = {"player_id": player_id, "entry": number, "stack": stack}
        if ko:
            fields["bounty"] = head
        message("entry", **fields)
        sim.entries += 1
        sim.bounties_put_up += head
        live.append(_Player(player_id, number, stack, head))

    for i in range(players):
        enter(f"player-{i:04d}")

    def buy(p: _Player, kind: str) -> None:
        """A rebuy or add-on: ``stack`` chips (and half a bounty in a knockout), one purchase more."""
        p.purchases += 1
        head = (bounty or 0) // 2
        fields: dict[str, Any] = {"player_id": p.player_id, "entry": p.entry, "purchase": p.purchases, "kind": kind,
                                  "chips": stack}  # fmt: skip
        if ko:
            fields["bounty"] = head
        message("chips", **fields)
        p.chips += stack
        p.bounty += head
        sim.bounties_put_up += head
        sim.purchases += 1

    hand_number = 0

    def play(table: list[_Player], table_id: str, *, all_in: bool, round_: int | None = None) -> list[_Player]:
        """One hand at ``table`` (seat i+1 is table[i]); returns who busted."""
        nonlocal hand_number
        hand_number += 1
        in_stage = bool(mystery_from) and sum(1 for p in live if p.chips) <= mystery_from
        deck = list(DECK)
        rng.shuffle(deck)
        button = rng.randint(1, len(table))
        chosen = rng.sample(range(len(table)), k=min(len(table), rng.randint(2, 4)))
        if all_in:
            level = max(rng.choice([table[i].chips for i in chosen]), 1)
        else:
            level = max(1, min(table[i].chips for i in chosen) // rng.randint(20, 60))
        seats = []
        card = 5
        for i, p in enumerate(table):
            in_hand = i in chosen
            put = min(p.chips, level) if in_hand else (rng.choice([0, 0, 0, 50]) if p.chips > 50 else 0)
            if not in_hand and put == 0:
                continue
            seat: dict[str, Any] = {
                "seat": i + 1,
                "player_id": p.player_id,
                "hole_cards": [deck[card].text, deck[card + 1].text],
                "contributed": put,
                "folded": not in_hand,
                "stack": p.chips,
            }
            if ko:
                seat["bounty"] = p.bounty
            card += 2
            seats.append(seat)
        live_top = max(s["contributed"] for s in seats if not s["folded"])
        for s in seats:  # a folded blind never exceeds what the live seats put in
            if s["folded"]:
                s["contributed"] = min(s["contributed"], live_top)
        doc: dict[str, Any] = {
            "schema_version": 1,
            "hand_id": f"{tournament_id}-{hand_number:06d}",
            "table_id": table_id,
            "tournament_id": tournament_id,
            "board": [c.text for c in deck[:5]],
            "button_seat": button,
            "players": seats,
        }
        if ko:
            doc["bounty_cash_ppm"] = bounty_cash_ppm
        if round_ is not None:
            doc["hand_for_hand_round"] = round_
        event = ShowdownEvent.model_validate(doc)
        settled = settle(to_showdown(event))
        by_seat = {s.seat: won for s, won in zip(settled.showdown.seats, settled.collected, strict=True)}
        for s in seats:
            p = table[s["seat"] - 1]
            p.chips += by_seat[s["seat"]] - s["contributed"]
        for award in settled.bounties:
            table[award.seat - 1].bounty = 0
            for w in award.winners:
                table[w.seat - 1].bounty += w.added
        if in_stage:  # the room draws an envelope for each elimination
            drawn = []
            for s in seats:
                if table[s["seat"] - 1].chips == 0:
                    amount = rng.choice([a for a, c in mystery.items() for _ in range(c)])
                    mystery[amount] -= 1
                    drawn.append({"seat": s["seat"], "amount": amount})
                    sim.envelopes_drawn += 1
            if drawn or rng.random() < 0.5:  # nobody out: the field may be [] or left out
                event = ShowdownEvent.model_validate({**doc, "mystery_bounties": drawn})
        emit("event", event.model_dump(mode="json", exclude_none=True))
        sim.hands += 1
        return [p for p in table if p.chips == 0]

    def tables() -> Iterator[tuple[str, list[_Player]]]:
        count = max(1, -(-len(live) // TABLE_SIZE))
        for t in range(count):
            yield f"{tournament_id}-table-{t + 1:02d}", live[t::count]

    def bust(gone: list[_Player]) -> None:
        for p in gone:
            live.remove(p)

    reentered = 0
    registration = True
    places_paid = 0
    rounds = 0
    payouts: list[int] = []

    def seats_decided() -> bool:
        """A satellite is over once every remaining entry would win the same prize (the ledger ends it)."""
        left = len(live)
        prizes = [payouts[p] if p < len(payouts) else 0 for p in range(left)]
        return satellite and not registration and len(set(prizes)) == 1

    def agree_deal() -> None:
        """Every entry left agrees a deal (custom: an equal split, units left to the first)."""
        unpaid = [payouts[p] if p < len(payouts) else 0 for p in range(len(live))]
        kept = (unpaid[0] - unpaid[1]) // rng.choice([1, 3, 10**9])  # all of it, a third, or nothing
        listed: list[dict[str, Any]] = [{"player_id": p.player_id, "entry": p.entry} for p in live]
        if deal_method == "custom":
            share, odd = divmod(sum(unpaid) - kept, len(live))
            for i, item in enumerate(listed):
                item["amount"] = share + (odd if i == 0 else 0)
        message("deal", method=deal_method, entries=listed, left_to_play_for=kept)
        sim.deals += 1

    while (len(live) > 1 or registration) and not seats_decided():
        if (
            deal_at
            and not sim.deals
            and not registration
            and not satellite
            and 2 <= len(live) <= min(deal_at, places_paid)
            and payouts[len(live) - 1] > 0
        ):
            agree_deal()
        if registration and (reentered >= reentries or sim.hands > players or len(live) <= 2):
            registration = False
            if rebuys:
                for p in live:
                    if rng.random() < 0.3:
                        buy(p, "add_on")
            field_size = len(live)
            places_paid = max(1, int(field_size * paid_fraction))
            pool = (sim.entries + sim.purchases) * buy_in
            if satellite:  # equal seats; what a seat's price leaves over goes to the next place
                seat_price = max(1, pool // places_paid)
                payouts = [seat_price] * places_paid + ([pool - seat_price * places_paid] if pool % seat_price else [])
            else:
                weights = [1 / (place + 1) for place in range(places_paid)]
                payouts = [int(pool * w / sum(weights)) for w in weights]
                payouts[0] += pool - sum(payouts)
            message("registration_closed", payouts=payouts)
            continue
        bubble = hand_for_hand and not registration and places_paid < len(live) <= places_paid + TABLE_SIZE // 2
        if bubble:
            rounds += 1
            gone: list[_Player] = []
            for table_id, table in list(tables()):
                if len(table) > 1:
                    gone += play(table, table_id, all_in=rng.random() < 0.5, round_=rounds)
            bust(gone)
            message("round_complete", round=rounds)
            sim.rounds = rounds
            continue
        for table_id, table in list(tables()):
            if len(table) < 2:
                continue
            gone = []
            for _ in range(quiet_hands):
                gone += play([p for p in table if p.chips], table_id, all_in=False)
            seated = [p for p in table if p.chips]
            if len(seated) > 1:
                gone += play(seated, table_id, all_in=True)
            bust(gone)
            if registration:
                for p in gone:
                    if reentered < reentries and rng.random() < 0.7:
                        reentered += 1
                        enter(p.player_id)
                for p in table if rebuys else ():
                    if 0 < p.chips < stack // 2 and sim.purchases < rebuys and rng.random() < 0.5:
                        buy(p, "rebuy")
            if (
                len(live) <= 1
                or seats_decided()
                or (not registration and len(live) <= places_paid + TABLE_SIZE // 2 and hand_for_hand)
            ):
                break
    return sim
