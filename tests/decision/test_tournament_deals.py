"""Final-table deals and mystery bounties in the tournament ledger: every rule and every refusal, one test each.

Rules and sources: docs/tournaments.md "Deals" and "Mystery bounties" (PokerStars "Tournament deals", GGPoker /
Natural8 deal rules, the rooms' mystery-bounty rules; where they leave a choice, ours).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from showdown_core import InvalidEvent
from showdown_messages import ShowdownEvent
from showdown_messages.tournaments import parse_tournament_message
from showdown_service.cli.commands import main
from showdown_service.decision.intake import parse_event
from showdown_service.decision.tournament_replay import TournamentReplay
from tests.tournament_builders import all_in, closed, deal, entry, opened, places, replay

PAYOUTS = [10000, 7600, 5000, 2000]


def final_three(*more: str, payouts: list[int] | None = None, **rules: Any) -> list[str]:
    """Four entries (a 1500, b 1200, c 650, d 325), registration closed, d busted by c (4th, 2000): a, b and c
    are left with 1500, 1200 and 975 chips."""
    return [
        opened(payouts=payouts or PAYOUTS, **rules),
        entry("a", 1500),
        entry("b", 1200),
        entry("c", 650),
        entry("d", 325),
        closed(),
        all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]),
        *more,
    ]


def refused(run: TournamentReplay) -> list[tuple[str, str]]:
    return [(r.code, r.message) for r in run.refused]


# --- the worked example (docs/tournaments.md) -------------------------------------------------------------------


def test_a_three_way_icm_deal_with_money_left_to_play_for_is_paid_at_each_elimination() -> None:
    run = replay(*final_three(deal("icm", ["a", "b", "c"], 1000)))
    assert not run.refused
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    assert ledger.deal is not None
    # ICM of [9000, 7600, 5000] (1000 off first prize) for stacks 1500, 1200, 975: 7530.41, 7198.20, 6871.39
    assert dict(ledger.deal.amounts) == {("a", 1): 7531, ("b", 1): 7198, ("c", 1): 6871}
    run.feed([all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)])])
    assert places(run)["c"] == (3, 1, 6871)  # 3rd pays c's deal amount, not 5000
    run.feed([all_in("H3", [(1, "a", 2475, 1200), (2, "b", 1200, 1200)])])
    assert not run.refused
    assert places(run) == {"a": (1, 1, 8531), "b": (2, 1, 7198), "c": (3, 1, 6871), "d": (4, 1, 2000)}
    assert sum(p[2] for p in places(run).values()) == sum(PAYOUTS)  # money conserved exactly


def test_the_winner_after_a_deal_need_not_be_the_chip_leader_at_the_deal() -> None:
    run = replay(
        *final_three(deal("icm", ["a", "b", "c"], 1000)),
        all_in("H2", [(3, "c", 975, 975), (1, "a", 1500, 975)]),  # c doubles through a
        all_in("H3", [(3, "c", 1950, 1200), (2, "b", 1200, 1200)]),
        all_in("H4", [(3, "c", 3150, 525), (1, "a", 525, 525)]),
    )
    assert not run.refused
    assert places(run) == {"c": (1, 1, 7871), "a": (2, 1, 7531), "b": (3, 1, 7198), "d": (4, 1, 2000)}


# --- methods ---------------------------------------------------------------------------------------------------------


def test_a_chip_chop_deal_pays_in_proportion_to_the_ledgers_chips() -> None:
    run = replay(*final_three(deal("chip_chop", ["a", "b", "c"])))
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    assert ledger.deal is not None
    # 22600 x 1500/3675 = 9224.49, x 1200/3675 = 7379.59, x 975/3675 = 5995.92: two units left, to .92 and .59
    assert dict(ledger.deal.amounts) == {("a", 1): 9224, ("b", 1): 7380, ("c", 1): 5996}


def test_an_equal_split_deal_pays_each_the_same_with_the_units_left_to_the_bigger_stack() -> None:
    run = replay(*final_three(deal("equal", ["a", "b", "c"], 100)))
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    assert ledger.deal is not None
    assert dict(ledger.deal.amounts) == {("a", 1): 7500, ("b", 1): 7500, ("c", 1): 7500}
    run = replay(*final_three(deal("equal", ["a", "b", "c"], 101)))
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    assert ledger.deal is not None
    # 22499 / 3 = 7499.67 each: two units left, to the bigger stacks a (1500) and b (1200)
    assert dict(ledger.deal.amounts) == {("a", 1): 7500, ("b", 1): 7500, ("c", 1): 7499}


def test_a_custom_deal_pays_the_amounts_agreed() -> None:
    run = replay(
        *final_three(deal("custom", ["a", "b", "c"], 600, amounts=[8000, 7000, 7000])),
        all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)]),
        all_in("H3", [(2, "b", 1200, 1200), (1, "a", 2475, 1200)]),  # b doubles: 2400, a 1275
        all_in("H4", [(2, "b", 2400, 1275), (1, "a", 1275, 1275)]),
    )
    assert not run.refused
    assert places(run) == {"b": (1, 1, 7600), "a": (2, 1, 8000), "c": (3, 1, 7000), "d": (4, 1, 2000)}


def test_entries_tied_after_a_deal_each_receive_their_own_deal_amount() -> None:
    # two equal stacks eliminated in one hand tie for 2nd: each their own amount, nothing shared
    run = replay(
        opened(payouts=PAYOUTS, equal_stacks="tie"),
        entry("a", 1000),
        entry("b", 500),
        entry("c", 500),
        entry("d", 100),
        closed(),
        all_in("H1", [(1, "a", 1000, 100), (4, "d", 100, 100)]),
        deal("icm", ["a", "b", "c"]),
        all_in("H2", [(1, "a", 1100, 500), (2, "b", 500, 500), (3, "c", 500, 500)]),
    )
    assert not run.refused
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    assert ledger.deal is not None
    amounts = dict(ledger.deal.amounts)
    assert amounts[("b", 1)] == amounts[("c", 1)] == 7065  # equal stacks, equal values
    assert places(run)["b"] == (2, 2, amounts[("b", 1)])
    assert places(run)["c"] == (2, 2, amounts[("c", 1)])
    assert places(run)["a"] == (1, 1, amounts[("a", 1)])
    assert sum(p[2] for p in places(run).values()) == sum(PAYOUTS)


def test_a_deal_never_includes_bounty_money() -> None:
    lines = [
        opened(payouts=[3000, 2000, 1000], bounty_cash_ppm=500_000),
        entry("a", 1000, bounty=500),
        entry("b", 1000, bounty=500),
        entry("c", 1000, bounty=500),
        closed(),
        deal("equal", ["a", "b", "c"]),
        all_in("H1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),
        all_in("H2", [(1, "a", 2000, 1000), (3, "c", 1000, 1000)]),
    ]
    run = replay(*lines)
    assert not run.refused
    finished, _ = run.book.standings("T")
    assert [(p["player_id"], p["prize"], p["bounty_cash"]) for p in finished] == [
        ("a", 2000, 250 + 250 + 1000),  # half of b's and of c's heads as cash, then its own head (500 + 250 + 250)
        ("c", 2000, 0),
        ("b", 2000, 0),
    ]
    assert sum(p["prize"] for p in finished) == 6000
    assert sum(p["bounty_cash"] for p in finished) == 1500  # every bounty put up, none in the deal


# --- refusals: each a dead letter naming why ---------------------------------------------------------------------


def test_a_deal_while_registration_is_open_is_refused() -> None:
    run = replay(opened(payouts=PAYOUTS), entry("a"), entry("b"), deal("equal", ["a", "b"]))
    assert refused(run) == [("deal_not_allowed", "tournament 'T': registration is still open (a deal is taken only "
                                                 "after it closes)")]  # fmt: skip


def test_a_deal_during_an_open_hand_for_hand_round_is_refused() -> None:
    run = replay(*final_three(all_in("H2", [(1, "a", 1500, 10), (2, "b", 1200, 10)], round_=1),
                              deal("icm", ["a", "b", "c"])))  # fmt: skip
    assert refused(run) == [("deal_not_allowed", "tournament 'T': hand-for-hand round 1 is not complete (a deal is "
                                                 "taken between rounds)")]  # fmt: skip


def test_a_deal_with_an_entry_not_in_the_money_is_refused() -> None:
    run = replay(*final_three(deal("icm", ["a", "b", "c"]), payouts=[10000, 7600]))
    assert refused(run)[0][0] == "deal_not_allowed"
    assert "3 entries are in play and place 3 pays nothing" in refused(run)[0][1]


def test_a_deal_after_the_tournament_finished_is_refused() -> None:
    run = replay(
        *final_three(all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)])),
        all_in("H3", [(1, "a", 2475, 1200), (2, "b", 1200, 1200)]),
        deal("equal", ["a", "b"]),
    )
    assert refused(run) == [("deal_not_allowed", "tournament 'T': it has finished")]


def test_a_deal_that_leaves_out_an_entry_in_play_is_refused() -> None:
    run = replay(*final_three(deal("icm", ["a", "b"])))
    assert refused(run) == [
        ("deal_entries", "entry 1 of 'c' is in play and not in the deal: every entry in play agrees it")
    ]


def test_a_deal_naming_a_busted_entry_is_refused() -> None:
    run = replay(*final_three(deal("icm", ["a", "b", "c", "d"])))
    assert refused(run) == [("deal_entries", "entry 1 of 'd' is not in play (finished in place 4)")]


def test_a_deal_naming_an_entry_never_registered_is_refused() -> None:
    run = replay(*final_three(deal("icm", ["a", "b", "c", ("a", 2)])))
    assert refused(run) == [("deal_entries", "entry 2 of 'a' was never registered in 'T'")]


def test_a_deal_naming_an_entry_twice_is_refused() -> None:
    run = replay(*final_three(deal("icm", ["a", "b", "c", "b"])))
    assert refused(run) == [("deal_entries", "entry 1 of 'b' is named twice")]


def test_a_custom_deal_whose_amounts_do_not_add_up_is_refused() -> None:
    run = replay(*final_three(deal("custom", ["a", "b", "c"], 600, amounts=[8000, 7000, 7001])))
    assert refused(run) == [
        (
            "deal_amounts",
            "entries: the amounts add up to 22001, not the unpaid prizes 22600 less 600 left to play for (22000)",
        )
    ]


def test_amounts_without_method_custom_are_refused() -> None:
    run = replay(*final_three(deal("icm", ["a", "b", "c"], amounts=[8000, 7000, 7600])))
    assert refused(run)[0][0] == "deal_amounts"
    assert "entries[0].amount" in refused(run)[0][1]


def test_left_to_play_for_above_first_prize_minus_second_is_refused() -> None:
    run = replay(*final_three(deal("icm", ["a", "b", "c"], 2401)))
    assert refused(run) == [
        (
            "deal_amounts",
            "left_to_play_for: 2401 is more than first prize minus second (10000 - 7600 = 2400): 1st "
            "would be guaranteed less than 2nd",
        )
    ]


def test_a_second_deal_is_refused_and_a_repeat_of_the_first_is_a_duplicate() -> None:
    run = replay(*final_three(deal("icm", ["a", "b", "c"], 1000), deal("icm", ["c", "b", "a"], 1000)))
    assert not run.refused  # the same deal again (entries in any order): a duplicate, applied once
    run.feed([deal("equal", ["a", "b", "c"])])
    assert refused(run) == [("deal_not_allowed", "tournament 'T' agreed a deal already")]


def test_a_refused_deal_changes_nothing_and_its_corrected_version_is_applied() -> None:
    run = replay(*final_three(deal("icm", ["a", "b"]), deal("icm", ["a", "b", "c"], 1000)))
    assert [code for code, _ in refused(run)] == ["deal_entries"]
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    assert ledger.deal is not None
    assert dict(ledger.deal.amounts) == {("a", 1): 7531, ("b", 1): 7198, ("c", 1): 6871}


# --- mystery bounties -----------------------------------------------------------------------------------------------

MYSTERY = {"from_entries_left": 3, "envelopes": [{"amount": 5000, "count": 1}, {"amount": 100, "count": 2}]}


def mystery_field(*more: str, **rules: Any) -> list[str]:
    """Four entries (a 1500, b 1200, c 650, d 325), registration closed; the stage starts at 3 entries in play.
    In a knockout (``bounty_cash_ppm`` given), 200 on every head."""
    head = 200 if rules.get("bounty_cash_ppm") else None
    return [
        opened(payouts=PAYOUTS, mystery_bounties=MYSTERY, **rules),
        entry("a", 1500, bounty=head),
        entry("b", 1200, bounty=head),
        entry("c", 650, bounty=head),
        entry("d", 325, bounty=head),
        closed(),
        *more,
    ]


def test_an_envelope_is_paid_as_cash_to_the_winner_of_the_relevant_pot() -> None:
    run = replay(
        *mystery_field(
            all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]),  # 4 in play: before the stage
            all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)], mystery=[(3, 5000)]),
        )
    )
    assert not run.refused
    finished, playing = run.book.standings("T")
    assert [(p["player_id"], p["place"], p["mystery_bounty_cash"]) for p in finished] == [("c", 3, 0), ("d", 4, 0)]
    assert {e.player_id: e.mystery_cash for e in playing} == {"a": 5000, "b": 0}
    assert run.book.envelopes_left("T") == {100: 2}


def test_an_envelope_of_a_chopped_relevant_pot_is_divided_as_a_knockout_bounty_is() -> None:
    run = replay(*mystery_field(all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)])))
    doc = {  # a and b chop with ace-king
        "event": {
            "schema_version": 1, "hand_id": "H2", "table_id": "table-1", "tournament_id": "T",
            "board": ["Ac", "Kh", "9h", "4s", "3s"], "button_seat": 3,
            "players": [
                {"seat": 1, "player_id": "a", "hole_cards": ["As", "Kd"], "contributed": 975, "stack": 1500},
                {"seat": 2, "player_id": "b", "hole_cards": ["Ah", "Kc"], "contributed": 975, "stack": 1200},
                {"seat": 3, "player_id": "c", "hole_cards": ["Qc", "Qd"], "contributed": 975, "stack": 975},
            ],
            "mystery_bounties": [{"seat": 3, "amount": 100}],
        }
    }  # fmt: skip
    run.feed([json.dumps(doc)])
    assert not run.refused
    _, playing = run.book.standings("T")
    assert {e.player_id: e.mystery_cash for e in playing} == {"a": 50, "b": 50}


def test_an_envelope_is_paid_as_cash_in_a_progressive_knockout_too() -> None:
    run = replay(
        *mystery_field(
            all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]),
            all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)], mystery=[(3, 100)]),
            bounty_cash_ppm=500_000,
        )
    )
    assert not run.refused
    _, playing = run.book.standings("T")
    a = next(e for e in playing if e.player_id == "a")
    # the envelope all cash; c's head (200 + 100 added from d's) half cash, half onto a's head
    assert (a.mystery_cash, a.bounty_cash, a.bounty) == (100, 150, 350)


def test_the_mystery_stage_covers_hands_that_start_with_at_most_n_entries_in_play() -> None:
    # the hand that takes the field from 4 to 3 starts with 4 in play: outside the stage
    run = replay(*mystery_field(all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)], mystery=[(4, 100)])))
    assert refused(run) == [
        (
            "mystery_bounty_not_expected",
            "the hand is outside the mystery-bounty stage of tournament 'T' (the stage starts at 3 entries in play)",
        )
    ]


def test_mystery_bounties_outside_the_stage_are_refused_even_empty() -> None:
    run = replay(*mystery_field(all_in("H1", [(1, "a", 1500, 10), (2, "b", 1200, 10)], mystery=[])))
    assert [code for code, _ in refused(run)] == ["mystery_bounty_not_expected"]
    run = replay(opened(payouts=PAYOUTS), entry("a"), entry("b"), all_in("H1", [(1, "a", 1000, 9), (2, "b", 1000, 9)],
                                                                         mystery=[]))  # fmt: skip
    assert refused(run) == [
        ("mystery_bounty_not_expected", "the hand is outside the mystery-bounty stage of tournament 'T' (it has none)")
    ]


def test_a_hand_in_the_stage_without_eliminations_may_send_no_envelope() -> None:
    run = replay(
        *mystery_field(
            all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]),
            all_in("H2", [(1, "a", 1500, 10), (2, "b", 1200, 10)], mystery=[]),
            all_in("H3", [(1, "a", 1510, 10), (2, "b", 1190, 10)]),
        )
    )
    assert not run.refused


def test_an_envelope_not_in_the_pool_is_refused_and_the_hand_not_settled() -> None:
    lines = mystery_field(
        all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]),
        all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)], mystery=[(3, 7)]),
        all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)], mystery=[(3, 100)]),  # corrected, sent after it
    )
    run = replay(*lines)
    assert refused(run) == [
        ("mystery_bounty_envelope", "mystery_bounties[0].amount: 7 is not an envelope of the pool (100, 5000)")
    ]
    assert places(run)["c"] == (3, 1, 5000)  # the corrected hand settled once
    assert run.book.envelopes_left("T") == {100: 1, 5000: 1}


def test_an_envelope_used_up_is_refused() -> None:
    run = replay(
        *mystery_field(
            all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]),
            all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)], mystery=[(3, 5000)]),
            all_in("H3", [(1, "a", 2475, 1200), (2, "b", 1200, 1200)], mystery=[(2, 5000)]),
        )
    )
    assert refused(run) == [
        ("mystery_bounty_envelope", "mystery_bounties[0].amount: every 5000 envelope of the pool is drawn already")
    ]


def test_an_eliminated_seat_without_an_envelope_is_refused() -> None:
    run = replay(
        *mystery_field(
            all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]),
            all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)]),
        )
    )
    assert refused(run) == [
        (
            "mystery_bounty_seat",
            "mystery_bounties: seat 3 was eliminated in the mystery-bounty stage and has no envelope",
        )
    ]


def test_an_envelope_for_a_seat_not_eliminated_is_refused() -> None:
    run = replay(
        *mystery_field(
            all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]),
            all_in("H2", [(1, "a", 1500, 10), (2, "b", 1200, 10)], mystery=[(2, 100)]),
        )
    )
    assert refused(run) == [
        ("mystery_bounty_seat", "mystery_bounties[0].seat: seat 2 was not eliminated in this hand: no envelope")
    ]


def test_envelopes_left_when_the_tournament_ends_are_reported_with_the_standings_never_paid() -> None:
    run = replay(
        *mystery_field(
            all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]),
            all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)], mystery=[(3, 100)]),
            all_in("H3", [(1, "a", 2475, 1200), (2, "b", 1200, 1200)], mystery=[(2, 5000)]),
        )
    )
    assert not run.refused
    finished, playing = run.book.standings("T")
    assert not playing
    assert [(p["player_id"], p["place"], p["mystery_bounty_cash"]) for p in finished] == [
        ("a", 1, 5100),
        ("b", 2, 0),
        ("c", 3, 0),
        ("d", 4, 0),
    ]
    assert run.book.envelopes_left("T") == {100: 1}  # reported, never paid
    assert sum(p["mystery_bounty_cash"] for p in finished) + 100 == 5200  # paid + left == the pool


def test_mystery_bounty_cash_is_absent_without_a_stage() -> None:
    run = replay(*final_three())
    finished, _ = run.book.standings("T")
    assert all("mystery_bounty_cash" not in p for p in finished)


# --- the contract -------------------------------------------------------------------------------------------------


def test_a_custom_deal_without_an_entrys_amount_is_refused_by_the_contract() -> None:
    run = replay(*final_three(deal("custom", ["a", "b", "c"], amounts=[8000, 7000])))
    assert refused(run) == [("deal_amounts", "entries[2].amount: is required: the method is custom")]


def test_an_envelope_for_a_seat_not_in_the_hand_or_twice_is_refused_by_the_contract() -> None:
    hand = all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)], mystery=[(5, 100)])
    run = replay(*mystery_field(all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]), hand))
    assert refused(run) == [("mystery_bounty_seat", "mystery_bounties[0].seat: seat 5 is not in the hand")]
    hand = all_in("H2", [(1, "a", 1500, 975), (3, "c", 975, 975)], mystery=[(3, 100), (3, 100)])
    run = replay(*mystery_field(all_in("H1", [(3, "c", 650, 325), (4, "d", 325, 325)]), hand))
    assert refused(run) == [("mystery_bounty_seat", "mystery_bounties[1].seat: seat 3 has an envelope already")]


def test_an_events_digest_is_unchanged_when_it_gives_no_mystery_bounties() -> None:
    """The field is left out of the canonical JSON when absent, so events settled before it existed keep their
    digest (a re-delivery after an upgrade is a duplicate, not a conflicting one)."""
    doc = json.loads(all_in("H1", [(1, "a", 1000, 10), (2, "b", 1000, 10)]))["event"]
    assert b"mystery_bounties" not in ShowdownEvent.model_validate(doc).__pydantic_serializer__.to_json(
        ShowdownEvent.model_validate(doc)
    )
    opened_doc = json.loads(opened(payouts=[1]))["tournament"]
    assert b"mystery_bounties" not in parse_tournament_message(json.dumps(opened_doc)).model_dump_json().encode()


def test_showdown_tournament_replay_reports_a_refused_deal_as_file_line_code_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = final_three(deal("icm", ["a", "b"]), deal("icm", ["a", "b", "c"], 1000))
    path = tmp_path / "final.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["tournament", "replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:8: deal_entries: entry 1 of 'c' is in play and not in the deal" in err
    assert "8 lines applied, 1 refused" in err


def test_envelopes_without_starting_stacks_are_refused_by_the_contract() -> None:
    doc = json.loads(all_in("H1", [(1, "a", 1000, 10), (2, "b", 1000, 10)], mystery=[(2, 100)]))["event"]
    for player in doc["players"]:
        del player["stack"]
    with pytest.raises(InvalidEvent) as caught:
        parse_event(json.dumps(doc))
    assert (caught.value.code, caught.value.field) == ("mystery_bounty_seat", "mystery_bounties")
    assert "without starting stacks" in caught.value.message
