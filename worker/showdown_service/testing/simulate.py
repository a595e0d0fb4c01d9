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

Why over 400 lines: one game server's whole tournament (registration, hands, the bubble, deals, mystery envelopes)
in one place, its random draws in one order (a seed's output is pinned by the tests and the benchmarks).
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
    rules = _Rules(
        tournament_id, players, reentries, stack, bounty, bounty_cash_ppm, paid_fraction, buy_in, hand_for_hand,
        quiet_hands, equal_stacks, hand_for_hand_rule, satellite, rebuys, deal_at, deal_method, mystery_from,
    )  # fmt: skip
    return _Generator(random.Random(seed), rules).run()  # noqa: S311 - a reproducible game, not a secret


@dataclass(frozen=True, slots=True)
class _Rules:
    """:func:`simulate`'s arguments: the tournament's settings and the generator's."""

    tournament_id: str
    players: int
    reentries: int
    stack: int
    bounty: int | None
    bounty_cash_ppm: int
    paid_fraction: float
    buy_in: int
    hand_for_hand: bool
    quiet_hands: int
    equal_stacks: str | None
    hand_for_hand_rule: str
    satellite: bool
    rebuys: int
    deal_at: int
    deal_method: str
    mystery_from: int


class _Generator:
    """The game server of one generated tournament: registration, tables, hands, busts, the bubble, a deal."""

    def __init__(self, rng: random.Random, rules: _Rules) -> None:
        self.rng = rng
        self.rules = rules
        self.sim = Simulation(rules.tournament_id)
        self.ko = rules.bounty is not None
        self.mystery: dict[int, int] = {}
        """Envelopes left in the pool, by amount."""
        self.entries: dict[str, int] = {}
        self.live: list[_Player] = []
        self.hand_number = 0
        self.reentered = 0
        self.registration = True
        self.places_paid = 0
        self.rounds = 0
        self.payouts: list[int] = []

    def run(self) -> Simulation:
        """The tournament from its opening to one winner (or the seats of a satellite decided)."""
        self._open()
        for i in range(self.rules.players):
            self._enter(f"player-{i:04d}")
        while (len(self.live) > 1 or self.registration) and not self._seats_decided():
            if self._deal_due():
                self._agree_deal()
            if self.registration and (
                self.reentered >= self.rules.reentries or self.sim.hands > self.rules.players or len(self.live) <= 2
            ):
                self._close_registration()
                continue
            if self._on_the_bubble():
                self._hand_for_hand_round()
                continue
            self._round_of_tables()
        return self.sim

    def _emit(self, kind: str, doc: dict[str, Any]) -> None:
        self.sim.lines.append(orjson.dumps({kind: doc}))

    def _message(self, message_type: str, **fields: Any) -> None:
        self._emit("tournament", {"schema_version": 1, "type": message_type, "tournament_id": self.rules.tournament_id,
                                  **fields})  # fmt: skip

    def _open(self) -> None:
        rules = self.rules
        extra: dict[str, Any] = {}
        if rules.mystery_from:
            buy_in = rules.buy_in
            self.mystery = {
                buy_in * 20: 1,
                buy_in * 2: rules.mystery_from // 2 + 1,
                max(1, buy_in // 4): rules.mystery_from,
            }
            self.sim.mystery_pool = sum(a * c for a, c in self.mystery.items())
            extra["mystery_bounties"] = {
                "from_entries_left": rules.mystery_from,
                "envelopes": [{"amount": a, "count": c} for a, c in self.mystery.items()],
            }
        self._message(
            "open",
            payouts=[],
            bounty_cash_ppm=rules.bounty_cash_ppm if self.ko else None,
            equal_stacks=rules.equal_stacks or self.rng.choice(["tie", "seat_order"]),
            hand_for_hand=rules.hand_for_hand_rule,
            satellite=rules.satellite,
            **extra,
        )

    def _enter(self, player_id: str) -> None:
        number = self.entries.get(player_id, 0) + 1
        self.entries[player_id] = number
        head = self.rules.bounty or 0
        fields: dict[str, Any] = {"player_id": player_id, "entry": number, "stack": self.rules.stack}
        if self.ko:
            fields["bounty"] = head
        self._message("entry", **fields)
        self.sim.entries += 1
        self.sim.bounties_put_up += head
        self.live.append(_Player(player_id, number, self.rules.stack, head))

    def _buy(self, p: _Player, kind: str) -> None:
        """A rebuy or add-on: ``stack`` chips (and half a bounty in a knockout), one purchase more."""
        p.purchases += 1
        head = (self.rules.bounty or 0) // 2
        fields: dict[str, Any] = {"player_id": p.player_id, "entry": p.entry, "purchase": p.purchases, "kind": kind,
                                  "chips": self.rules.stack}  # fmt: skip
        if self.ko:
            fields["bounty"] = head
        self._message("chips", **fields)
        p.chips += self.rules.stack
        p.bounty += head
        self.sim.bounties_put_up += head
        self.sim.purchases += 1

    def _play(self, table: list[_Player], table_id: str, *, all_in: bool, round_: int | None = None) -> list[_Player]:
        """One hand at ``table`` (seat i+1 is table[i]); returns who busted."""
        rng, rules = self.rng, self.rules
        self.hand_number += 1
        in_stage = bool(rules.mystery_from) and sum(1 for p in self.live if p.chips) <= rules.mystery_from
        deck = list(DECK)
        rng.shuffle(deck)
        button = rng.randint(1, len(table))
        chosen = rng.sample(range(len(table)), k=min(len(table), rng.randint(2, 4)))
        if all_in:
            level = max(rng.choice([table[i].chips for i in chosen]), 1)
        else:
            level = max(1, min(table[i].chips for i in chosen) // rng.randint(20, 60))
        seats = self._seats(table, chosen, level, deck)
        doc: dict[str, Any] = {
            "schema_version": 1,
            "hand_id": f"{rules.tournament_id}-{self.hand_number:06d}",
            "table_id": table_id,
            "tournament_id": rules.tournament_id,
            "board": [c.text for c in deck[:5]],
            "button_seat": button,
            "players": seats,
        }
        if self.ko:
            doc["bounty_cash_ppm"] = rules.bounty_cash_ppm
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
            drawn = self._envelopes(table, seats)
            if drawn or rng.random() < 0.5:
                event = ShowdownEvent.model_validate({**doc, "mystery_bounties": drawn})
        self._emit("event", event.model_dump(mode="json", exclude_none=True))
        self.sim.hands += 1
        return [p for p in table if p.chips == 0]

    def _seats(self, table: list[_Player], chosen: list[int], level: int, deck: list[Any]) -> list[dict[str, Any]]:
        """The hand's seats: those ``chosen`` put ``level`` (or all they have) in; others may fold a blind."""
        seats = []
        card = 5
        for i, p in enumerate(table):
            in_hand = i in chosen
            put = min(p.chips, level) if in_hand else (self.rng.choice([0, 0, 0, 50]) if p.chips > 50 else 0)
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
            if self.ko:
                seat["bounty"] = p.bounty
            card += 2
            seats.append(seat)
        live_top = max(s["contributed"] for s in seats if not s["folded"])
        for s in seats:  # a folded blind never exceeds what the live seats put in
            if s["folded"]:
                s["contributed"] = min(s["contributed"], live_top)
        return seats

    def _envelopes(self, table: list[_Player], seats: list[dict[str, Any]]) -> list[dict[str, int]]:
        """An envelope drawn from the pool for each seat the hand eliminated."""
        drawn = []
        for s in seats:
            if table[s["seat"] - 1].chips == 0:
                amount = self.rng.choice([a for a, c in self.mystery.items() for _ in range(c)])
                self.mystery[amount] -= 1
                drawn.append({"seat": s["seat"], "amount": amount})
                self.sim.envelopes_drawn += 1
        return drawn

    def _tables(self) -> Iterator[tuple[str, list[_Player]]]:
        count = max(1, -(-len(self.live) // TABLE_SIZE))
        for t in range(count):
            yield f"{self.rules.tournament_id}-table-{t + 1:02d}", self.live[t::count]

    def _bust(self, gone: list[_Player]) -> None:
        for p in gone:
            self.live.remove(p)

    def _seats_decided(self) -> bool:
        """A satellite is over once every remaining entry would win the same prize (the ledger ends it)."""
        left = len(self.live)
        prizes = [self.payouts[p] if p < len(self.payouts) else 0 for p in range(left)]
        return self.rules.satellite and not self.registration and len(set(prizes)) == 1

    def _deal_due(self) -> bool:
        """At most ``deal_at`` entries left, all in the money, and no deal yet (never in a satellite)."""
        rules, left = self.rules, len(self.live)
        return bool(
            rules.deal_at
            and not self.sim.deals
            and not self.registration
            and not rules.satellite
            and 2 <= left <= min(rules.deal_at, self.places_paid)
            and self.payouts[left - 1] > 0
        )

    def _agree_deal(self) -> None:
        """Every entry left agrees a deal (custom: an equal split, units left to the first)."""
        unpaid = [self.payouts[p] if p < len(self.payouts) else 0 for p in range(len(self.live))]
        kept = (unpaid[0] - unpaid[1]) // self.rng.choice([1, 3, 10**9])  # all of it, a third, or nothing
        listed: list[dict[str, Any]] = [{"player_id": p.player_id, "entry": p.entry} for p in self.live]
        if self.rules.deal_method == "custom":
            share, odd = divmod(sum(unpaid) - kept, len(self.live))
            for i, item in enumerate(listed):
                item["amount"] = share + (odd if i == 0 else 0)
        self._message("deal", method=self.rules.deal_method, entries=listed, left_to_play_for=kept)
        self.sim.deals += 1

    def _close_registration(self) -> None:
        """Add-ons for some (with rebuys), then the places paid and the prizes from the pool."""
        rules = self.rules
        self.registration = False
        if rules.rebuys:
            for p in self.live:
                if self.rng.random() < 0.3:
                    self._buy(p, "add_on")
        field_size = len(self.live)
        self.places_paid = places_paid = max(1, int(field_size * rules.paid_fraction))
        pool = (self.sim.entries + self.sim.purchases) * rules.buy_in
        if rules.satellite:  # equal seats; what a seat's price leaves over goes to the next place
            seat_price = max(1, pool // places_paid)
            self.payouts = [seat_price] * places_paid + ([pool - seat_price * places_paid] if pool % seat_price else [])
        else:
            weights = [1 / (place + 1) for place in range(places_paid)]
            self.payouts = [int(pool * w / sum(weights)) for w in weights]
            self.payouts[0] += pool - sum(self.payouts)
        self._message("registration_closed", payouts=self.payouts)

    def _on_the_bubble(self) -> bool:
        places = self.places_paid
        return (
            self.rules.hand_for_hand and not self.registration and places < len(self.live) <= places + TABLE_SIZE // 2
        )

    def _hand_for_hand_round(self) -> None:
        """Every table plays one hand, then the round is complete."""
        self.rounds += 1
        gone: list[_Player] = []
        for table_id, table in list(self._tables()):
            if len(table) > 1:
                gone += self._play(table, table_id, all_in=self.rng.random() < 0.5, round_=self.rounds)
        self._bust(gone)
        self._message("round_complete", round=self.rounds)
        self.sim.rounds = self.rounds

    def _round_of_tables(self) -> None:
        """Each table plays its quiet hands and one confrontation; re-entries and rebuys while registration is
        open; stops early once the tournament (or the bubble) is reached."""
        rules, rng = self.rules, self.rng
        for table_id, table in list(self._tables()):
            if len(table) < 2:
                continue
            gone: list[_Player] = []
            for _ in range(rules.quiet_hands):
                gone += self._play([p for p in table if p.chips], table_id, all_in=False)
            seated = [p for p in table if p.chips]
            if len(seated) > 1:
                gone += self._play(seated, table_id, all_in=True)
            self._bust(gone)
            if self.registration:
                for p in gone:
                    if self.reentered < rules.reentries and rng.random() < 0.7:
                        self.reentered += 1
                        self._enter(p.player_id)
                for p in table if rules.rebuys else ():
                    if 0 < p.chips < rules.stack // 2 and self.sim.purchases < rules.rebuys and rng.random() < 0.5:
                        self._buy(p, "rebuy")
            if (
                len(self.live) <= 1
                or self._seats_decided()
                or (
                    not self.registration
                    and len(self.live) <= self.places_paid + TABLE_SIZE // 2
                    and rules.hand_for_hand
                )
            ):
                break
