"""Live: an event naming its table's rake schedule is raked by it, a stated rake is checked, who paid it is said."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import fakeredis
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from showdown_core import InvalidEvent, build_pots, settle
from showdown_core.rake import Cap, Schedule, Tier, Version, attribute, rake_hand
from showdown_messages import ShowdownResult
from showdown_rules.codes import CODES
from showdown_service.decision.intake import parse_event, to_showdown
from showdown_service.decision.rake_live import apply_schedule, hand_of, pots_of
from showdown_service.decision.rake_schedules import load_schedules
from showdown_service.decision.settling import prepare
from showdown_service.decision.wire import result_document
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker
from tests.helpers import REPO, event, seat, xadd_events
from tests.strategies import EVERY_GAME, deal_hand
from tests.worker.test_worker_unit import NOW, dead_letters, drain

SHIPPED = load_schedules()
SHIPPED_FILE = json.loads((REPO / "worker/showdown_service/data/rake/pokerstars-usd-nl-pl.json").read_text())
STAKES = {"small_blind": 5, "big_blind": 10}
# five dealt in at $0.05/$0.10, a 24.68 pot after the flop (allin_showdown_rake.txt's figures): 4.5% = 1.11
FLOPPED = event(
    seat(2, None, 2, folded=True),
    seat(3, "8h 8c", 1226),
    seat(4, "Ah Ks", 1226),
    seat(5, None, 12, folded=True),
    seat(6, None, 2, folded=True),
    board="5c 4c 4h Qs Kc",
    button=3,
    rake_schedule="pokerstars-usd-nl-pl",
    stakes=STAKES,
    occurred_at="2026-11-29T02:00:00Z",
)


def judged(doc: dict[str, Any]) -> Any:
    return prepare("1-0", {b"event": json.dumps(doc).encode()}, failures=0, max_deliveries=5,
                   max_payload_bytes=65536, now=NOW, started=0.0)  # fmt: skip


def result_of(doc: dict[str, Any]) -> dict[str, Any]:
    p = judged(doc)
    assert p.code is None, p.message
    document: dict[str, Any] = orjson.loads(p.result)
    ShowdownResult.model_validate(document)
    return document


def test_the_worker_takes_the_schedules_rake_when_the_event_states_none() -> None:
    doc = result_of(FLOPPED)
    assert [(p["amount"], p["rake"]) for p in doc["pots"]] == [(2468, 111)]
    assert doc["rake_schedule"] == "pokerstars-usd-nl-pl"
    assert {a["seat"]: a["amount"] for a in doc["awards"]}[4] == 2357  # "collected $23.57 from pot"


def test_the_result_says_who_paid_the_rake_weighted_by_contribution_summing_to_it() -> None:
    # PokerStars: weighted contributed (since 2012): 111 over 2 + 1226 + 1226 + 12 + 2 chips
    paid = result_of(FLOPPED)["rake_paid"]
    # 55.14, 55.14, 0.54 and 0.09 twice: the odd chip left goes to the largest remainder, seat 5's
    assert paid == [{"seat": 2, "amount": 0}, {"seat": 3, "amount": 55}, {"seat": 4, "amount": 55},
                    {"seat": 5, "amount": 1}, {"seat": 6, "amount": 0}]  # fmt: skip
    assert sum(p["amount"] for p in paid) == 111


def test_a_stated_rake_equal_to_the_schedules_settles() -> None:
    assert result_of({**FLOPPED, "rake": 111})["pots"][0]["rake"] == 111


def test_a_stated_rake_that_differs_is_refused_as_rake_mismatch_naming_schedule_pot_expected_and_stated() -> None:
    # issue 38's rk-2: a 42% rake was accepted; rk-3: the whole pot
    for stated in (110, 112, 1000, 2468):
        p = judged({**FLOPPED, "rake": stated})
        assert p.code == "rake_mismatch"
        assert p.message == (
            f"rake: schedule 'pokerstars-usd-nl-pl' (from 2012-01-01) takes 111 from the 2468 chips in the pots "
            f"(5 dealt in, big blind 10, cap 150); the event states {stated}"
        )


def test_no_flop_no_drop_live_a_preflop_hand_stating_rake_is_refused() -> None:
    preflop = {**FLOPPED, "board": [], "players": [seat(3, None, 10, folded=True), seat(4, "Ah Ks", 30)], "rake": 1}
    p = judged(preflop)
    assert p.code == "rake_mismatch"
    assert "takes 0 from the 20 chips" in p.message  # 30 - 10: the uncalled 10 went back
    assert "(the hand ended in its first betting round: no flop, no drop)" in p.message
    assert result_of({**preflop, "rake": 0})["pots"][0]["rake"] == 0


def test_an_unknown_schedule_is_refused_as_unknown_rake_schedule_never_settled_with_a_guess() -> None:
    p = judged({**FLOPPED, "rake_schedule": "pokerstars-usd-fl"})
    assert p.code == "unknown_rake_schedule"
    assert p.message.startswith("rake_schedule: 'pokerstars-usd-fl' is no schedule this worker knows (it knows: 888")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"stakes": {"small_blind": 500, "big_blind": 1000}}, "posts no rake for big blind 1000"),
        ({"stakes": None}, "posts no rake for no stakes given"),
        ({"occurred_at": "2011-12-31T23:00:00Z"}, "no version of it is in effect on 2011-12-31"),
    ],
)
def test_stakes_date_or_game_the_schedule_does_not_post_are_unknown_rake_schedule(
    change: dict[str, Any], words: str
) -> None:
    doc = {k: v for k, v in {**FLOPPED, **change}.items() if v is not None}
    with pytest.raises(InvalidEvent) as caught:
        apply_schedule(parse_event(json.dumps(doc)), to_showdown(parse_event(json.dumps(doc))), SHIPPED)
    assert (caught.value.code, words in caught.value.message) == ("unknown_rake_schedule", True), caught.value.message


def test_a_game_the_schedule_does_not_rake_is_unknown_rake_schedule() -> None:
    omaha_only = {"pokerstars-usd-nl-pl": replace(SHIPPED["pokerstars-usd-nl-pl"], games=("omaha",))}
    event_ = parse_event(json.dumps(FLOPPED))
    with pytest.raises(InvalidEvent, match=r"posts no rake for holdem \(its games: omaha\)") as caught:
        apply_schedule(event_, to_showdown(event_), omaha_only)
    assert caught.value.code == "unknown_rake_schedule"


def test_a_tournament_hand_under_a_schedule_that_rakes_per_hand_is_refused() -> None:
    p = judged({**FLOPPED, "tournament_id": "T1"})
    assert p.code == "tournament_rake"
    assert "never raked per hand" in p.message


def test_the_new_codes_are_listed() -> None:
    assert {"rake_mismatch", "unknown_rake_schedule"} <= CODES.keys()


def test_an_event_without_a_schedule_is_settled_and_digested_as_before() -> None:
    plain = {k: v for k, v in FLOPPED.items() if k not in {"rake_schedule", "stakes"}}
    p = judged({**plain, "rake": 111})
    assert p.code is None
    doc = orjson.loads(p.result)
    assert "rake_schedule" not in doc
    assert "rake_paid" not in doc
    assert b"rake_schedule" not in parse_event(json.dumps(plain)).__pydantic_serializer__.to_json(
        parse_event(json.dumps(plain))
    )


def test_a_mismatch_is_a_dead_letter_of_the_worker(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings_ = make_settings()
    keys = settings_.keys("default")
    xadd_events(fake, keys.events, [{**FLOPPED, "hand_id": "ok"}, {**FLOPPED, "hand_id": "bad", "rake": 500},
                                    {**FLOPPED, "hand_id": "who", "rake_schedule": "nowhere"}])  # fmt: skip
    worker = Worker(settings_, fake)
    worker.prepare_groups()
    drain(worker)
    letters = dead_letters(fake, keys.dead)
    assert [d["code"] for d in letters] == ["rake_mismatch", "unknown_rake_schedule"]
    assert "takes 111 from the 2468 chips" in letters[0]["message"]
    results = [orjson.loads(f[b"result"]) for _, f in read_range(fake, keys.results)]
    assert [(r["hand_id"], r["pots"][0]["rake"]) for r in results] == [("ok", 111)]


def test_the_worker_reads_the_schedules_directory_setting(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path
) -> None:
    room = json.loads(json.dumps(SHIPPED_FILE))
    room["id"] = "my-room"
    room["versions"][0]["stakes"] = [{"big_blind": 10, "percent": 10}]
    (tmp_path / "my-room.json").write_text(json.dumps(room))
    settings_ = make_settings(rake_schedules_dir=tmp_path)
    keys = settings_.keys("default")
    xadd_events(fake, keys.events, [{**FLOPPED, "rake_schedule": "my-room"}])
    worker = Worker(settings_, fake)
    worker.prepare_groups()
    drain(worker)
    results = [orjson.loads(f[b"result"]) for _, f in read_range(fake, keys.results)]
    assert [r["pots"][0]["rake"] for r in results] == [247]  # 10% of 2468, uncapped


# --- properties: random hands of every game, run twice included ----------------------------------------------------

EVERY = Schedule(
    "every",
    "Test room",
    "USD",
    EVERY_GAME,
    (
        Version(
            date(2000, 1, 1),
            None,
            "percentage",
            (Tier(None, rate_ppm=50_000, caps=(Cap(2, 2, 300), Cap(3, None, 900))),),
            cap_split="proportional",
        ),
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False))
def test_on_random_hands_of_every_game_money_in_equals_money_out_and_the_rake_keeps_to_the_schedule(
    rng: random.Random,
) -> None:
    doc = deal_hand(rng, games=EVERY_GAME, rake=False)
    doc = {k: v for k, v in doc.items() if k not in {"rake", "rake_ppm"}} | {"rake_schedule": "every"}
    event_ = parse_event(json.dumps(doc))
    if event_.tournament_id is not None:  # tournaments: a fee in the buy-in, never a rake per hand
        with pytest.raises(InvalidEvent, match="never raked per hand") as caught:
            apply_schedule(event_, to_showdown(event_), {"every": EVERY})
        assert caught.value.code == "tournament_rake"
        return
    showdown = apply_schedule(event_, to_showdown(event_), {"every": EVERY})
    settlement = settle(showdown)
    put_in = sum(s.put_in for s in showdown.seats)
    pots, returned = build_pots(showdown.seats)
    in_pots = sum(p.amount for p in pots)
    rake = showdown.rake
    assert sum(settlement.collected) + rake == put_in  # contributed = awards + rake (uncalled bets back whole)
    assert sum(r.amount for r in settlement.returned) == sum(r.amount for r in returned)  # never raked
    assert rake <= min(900 if len(showdown.seats) > 2 else 300, (in_pots * 5 + 50) // 100)
    assert sum(p.rake for p in settlement.pots) == rake
    assert sum(a for _, a in showdown.rake_paid) == rake
    live = [s for s in showdown.seats if not s.folded]
    if len(live) == 1 and showdown.variant.shape.board_cards and not showdown.board:
        assert rake == 0  # ended in the first betting round: no flop, no drop
    document = result_document(settlement, NOW)
    assert Counter(document.keys()) >= Counter(["rake_schedule", "rake_paid"])


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False))
def test_pots_of_on_random_hands_of_every_game_are_the_settlements_own_pots(rng: random.Random) -> None:
    # the schedule's one-pass pots (the usual showdown; any other hand by build_pots): what the settlement builds
    seats = to_showdown(parse_event(json.dumps(deal_hand(rng, games=EVERY_GAME, rake=False)))).seats
    pots, returned = build_pots(seats)
    assert pots_of(seats) == (
        tuple(p.amount for p in pots),
        {r.seat: r.amount for r in returned},
        sum(not s.folded for s in seats),
    )


def test_stakes_that_are_not_blinds_are_refused_as_bad_chips_naming_the_field() -> None:
    p = judged({**FLOPPED, "stakes": {"small_blind": 0, "big_blind": 10}})
    assert (p.code, p.message.split(":")[0]) == ("bad_chips", "stakes.small_blind")


def test_a_key_given_twice_in_stakes_is_refused_as_duplicate_key() -> None:
    text = json.dumps(FLOPPED).replace('"big_blind": 10', '"big_blind": 10, "big_blind": 20')
    p = prepare("1-0", {b"event": text.encode()}, failures=0, max_deliveries=5, max_payload_bytes=65536, now=NOW,
                started=0.0)  # fmt: skip
    assert (p.code, (p.message or "").split(":")[0]) == ("duplicate_key", "stakes.big_blind")


def _random_schedule(rng: random.Random) -> Schedule:
    """One version of every kind a schedule may post per hand: its mode, rounding, stage, caps, split, method."""
    mode = rng.choice(["percentage", "incremental", "fixed_drop"])
    caps = () if rng.random() < 0.3 else (Cap(2, 2, rng.randint(1, 400)), Cap(3, None, rng.randint(1, 900)))
    tier = Tier(None, rate_ppm=rng.randint(0, 100_000), per=rng.randint(1, 50), take=rng.randint(0, 3),
                drop=rng.randint(0, 500), caps=caps)  # fmt: skip
    version = Version(
        date(2000, 1, 1), None, mode, (tier,), rounding=rng.choice(["half_even", "down", "up"]),  # type: ignore[arg-type]
        multiplier_ppm=rng.choice([None, 1_250_000]), no_flop_no_drop=rng.random() < 0.8,
        cap_split=rng.choice(["proportional", "main_pot_first"]),
        attribution=rng.choice(["dealt", "contributed", "weighted_contributed"]),
    )  # fmt: skip
    return Schedule("random", "Test room", "USD", EVERY_GAME, (version,))


@settings(max_examples=400, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_usual_hands_fast_path_equals_the_cores_rake_hand_and_attribute_on_random_hands_and_schedules(
    rng: random.Random,
) -> None:
    # the worker's one-pass path (one pot, nothing returned, contested) against the core's general rules
    schedule = _random_schedule(rng)
    version = schedule.versions[0]
    doc = deal_hand(rng, games=EVERY_GAME, rake=False)
    doc = {k: v for k, v in doc.items() if k not in {"rake", "rake_ppm", "tournament_id"}}
    doc |= {"rake_schedule": "random"}
    event_ = parse_event(json.dumps(doc))
    showdown = to_showdown(event_)
    pots, returned = build_pots(showdown.seats)
    back = {r.seat: r.amount for r in returned}
    raked = rake_hand(version, hand_of(showdown, tuple(p.amount for p in pots), None))
    paid = attribute(
        raked.rake, [(s.seat, s.contributed + s.dead_money - back.get(s.seat, 0)) for s in showdown.seats],
        version.attribution,
    )  # fmt: skip
    for stated in ({}, {"rake": raked.rake}):  # computed, and the same stated (checked)
        given_ = parse_event(json.dumps(doc | stated))
        got = apply_schedule(given_, to_showdown(given_), {"random": schedule})
        assert (got.rake, got.rake_pots, got.rake_paid) == (raked.rake, raked.by_pot if raked.rake else (), paid)


def test_a_schedules_row_and_cap_are_found_once_per_schedule_stakes_and_players_dealt_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the per-hand work is the pot's arithmetic: the stakes row and its cap are resolved once, then kept
    looked: list[int] = []
    cap_for = Tier.cap_for

    def counted(tier: Tier, dealt_in: int) -> int | None:
        looked.append(dealt_in)
        return cap_for(tier, dealt_in)

    monkeypatch.setattr(Tier, "cap_for", counted)
    schedules = {"pokerstars-usd-nl-pl": replace(SHIPPED["pokerstars-usd-nl-pl"])}  # a new object: found afresh
    event_ = parse_event(json.dumps(FLOPPED))
    raked = [apply_schedule(event_, to_showdown(event_), schedules) for _ in range(3)]
    assert [r.rake for r in raked] == [111, 111, 111]
    assert looked == [5]
