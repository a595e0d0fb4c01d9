"""The tournament floor's rulings (showdown_core.tournament): every rule of docs/tournaments.md, one test
each, through the in-process replay the auditors run (the worker applies the same book in its commit)."""

from __future__ import annotations

import json

from tests.tournament_builders import all_in, chips, closed, entry, opened, places, replay, round_complete

PAYOUTS = [5000, 3000, 2000]


def test_entries_eliminated_in_different_hands_finish_in_the_order_of_their_hands() -> None:
    run = replay(
        opened(payouts=PAYOUTS), entry("a"), entry("b"), entry("c"), entry("d"), closed(),
        all_in("h1", [(1, "a", 1000, 1000), (4, "d", 1000, 1000)]),
        all_in("h2", [(1, "a", 2000, 1000), (3, "c", 1000, 1000)]),
        all_in("h3", [(1, "a", 3000, 1000), (2, "b", 1000, 1000)]),
    )  # fmt: skip
    assert run.refused == []
    assert places(run) == {"a": (1, 1, 5000), "b": (2, 1, 3000), "c": (3, 1, 2000), "d": (4, 1, 0)}


def test_of_two_entries_eliminated_in_one_hand_the_bigger_starting_stack_finishes_higher() -> None:
    run = replay(
        opened(payouts=PAYOUTS), entry("a", 3000), entry("b", 1000), entry("c", 500), entry("d", 2000), closed(),
        all_in("h1", [(1, "a", 3000, 1000), (3, "c", 500, 500), (2, "b", 1000, 1000)]),
    )  # fmt: skip
    assert places(run) == {"b": (3, 1, 2000), "c": (4, 1, 0)}


def test_equal_starting_stacks_eliminated_in_one_hand_tie_and_share_the_prizes_odd_cent_by_entry_order() -> None:
    run = replay(
        opened(payouts=[5000, 3000, 2001]), entry("a", 3000), entry("b", 1000), entry("c", 1000), entry("d", 2000),
        closed(),
        all_in("h1", [(1, "a", 3000, 1000), (3, "c", 1000, 1000), (2, "b", 1000, 1000)]),
    )  # fmt: skip
    assert places(run) == {"b": (3, 2, 1001), "c": (3, 2, 1000)}  # b entered first: the odd cent is b's


def test_with_seat_order_the_first_eliminated_left_of_the_button_finishes_higher() -> None:
    def finish(button: int) -> dict[str, tuple[int | None, int, int]]:
        return places(
            replay(
                opened(payouts=PAYOUTS, equal_stacks="seat_order"),
                entry("a", 3000),
                entry("b", 1000),
                entry("c", 1000),
                entry("d", 2000),
                closed(),
                all_in("h1", [(1, "a", 3000, 1000), (3, "c", 1000, 1000), (2, "b", 1000, 1000)], button=button),
            )
        )

    assert finish(button=1) == {"b": (3, 1, 2000), "c": (4, 1, 0)}  # seat 2 is first left of the button
    assert finish(button=2) == {"c": (3, 1, 2000), "b": (4, 1, 0)}  # seat 3 is


def test_hand_for_hand_busts_are_placed_when_the_round_completes_ranked_by_stack_across_tables() -> None:
    lines = [
        opened(payouts=PAYOUTS), entry("a", 3000), entry("b", 1000), entry("c", 500), entry("d", 2000), closed(),
        all_in("h1", [(1, "d", 2000, 500), (2, "c", 500, 500)], table="t2", round_=1),
        all_in("h2", [(1, "a", 3000, 1000), (2, "b", 1000, 1000)], table="t1", round_=1),
    ]  # fmt: skip
    run = replay(*lines)
    assert run.refused == []
    assert run.placements == []  # held until every table has played the round
    run.feed([round_complete(1)])
    assert places(run) == {"b": (3, 1, 2000), "c": (4, 1, 0)}  # c busted first, but with the smaller stack


def test_hand_for_hand_equal_stacks_at_different_tables_tie_even_with_seat_order() -> None:
    run = replay(
        opened(payouts=PAYOUTS, equal_stacks="seat_order"),
        entry("a", 3000), entry("b", 1000), entry("c", 1000), entry("d", 2000), closed(),
        all_in("h1", [(1, "a", 3000, 1000), (2, "b", 1000, 1000)], table="t1", round_=1),
        all_in("h2", [(1, "d", 2000, 1000), (2, "c", 1000, 1000)], table="t2", round_=1),
        round_complete(1),
    )  # fmt: skip
    assert places(run) == {"b": (3, 2, 1000), "c": (3, 2, 1000)}


def test_hand_for_hand_tie_setting_makes_every_bust_of_the_round_tie() -> None:
    run = replay(
        opened(payouts=PAYOUTS, hand_for_hand="tie"),
        entry("a", 3000), entry("b", 1000), entry("c", 500), entry("d", 2000), closed(),
        all_in("h1", [(1, "a", 3000, 1000), (2, "b", 1000, 1000)], table="t1", round_=1),
        all_in("h2", [(1, "d", 2000, 500), (2, "c", 500, 500)], table="t2", round_=1),
        round_complete(1),
    )  # fmt: skip
    assert places(run) == {"b": (3, 2, 1000), "c": (3, 2, 1000)}


def test_a_hand_of_a_completed_round_is_refused() -> None:
    run = replay(
        opened(payouts=PAYOUTS), entry("a"), entry("b"), entry("c"), closed(), round_complete(1),
        all_in("h1", [(1, "a", 1000, 100), (2, "b", 1000, 100)], round_=1),
    )  # fmt: skip
    assert [r.code for r in run.refused] == ["round_already_complete"]


def test_the_last_entry_left_finishes_first_and_collects_its_own_bounty_as_cash() -> None:
    run = replay(
        opened(payouts=[700, 300], bounty_cash_ppm=500_000),
        entry("a", 1000, bounty=500), entry("b", 1000, bounty=500), closed(),
        all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),
    )  # fmt: skip
    assert run.refused == []
    finished, playing = run.book.standings("T")
    assert playing == []
    assert [(p["player_id"], p["place"], p["prize"], p["bounty_cash"]) for p in finished] == [
        ("a", 1, 700, 1000),  # 250 cash for b's head, 250 added to a's own, which a collects at the end
        ("b", 2, 300, 0),
    ]


def test_a_satellite_ends_when_every_remaining_entry_would_win_the_same_prize() -> None:
    run = replay(
        opened(payouts=[1000, 1000, 1000], satellite=True),
        *[entry(p) for p in "abcde"], closed(),
        all_in("h1", [(1, "a", 1000, 1000), (5, "e", 1000, 1000)]),
        all_in("h2", [(2, "b", 1000, 1000), (4, "d", 1000, 1000)]),
    )  # fmt: skip
    assert places(run) == {"a": (1, 3, 1000), "b": (1, 3, 1000), "c": (1, 3, 1000), "d": (4, 1, 0), "e": (5, 1, 0)}


def test_an_entry_eliminated_during_registration_has_no_place_and_its_player_may_enter_again() -> None:
    run = replay(
        opened(payouts=PAYOUTS), entry("a"), entry("b"), entry("c"),
        all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),
        entry("b", number=2),
        closed(),
        all_in("h2", [(1, "a", 2000, 1000), (2, "b", 1000, 1000)]),
    )  # fmt: skip
    assert run.refused == []
    assert places(run) == {"b": (None, 1, 0), "b#2": (3, 1, 2000)}
    assert run.placements[0] == {"tournament_id": "T", "player_id": "b", "entry": 1, "place": None, "tied": 1,
                                 "prize": 0, "bounty_cash": 0}  # fmt: skip


def test_places_count_from_the_close_of_registration() -> None:
    run = replay(
        opened(payouts=PAYOUTS), entry("a"), entry("b"), entry("c"),
        all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),
        closed(payouts=[5000, 3000]),  # the field is 2: two places to pay
        all_in("h2", [(1, "a", 2000, 1000), (3, "c", 1000, 1000)]),
    )  # fmt: skip
    assert places(run) == {"b": (None, 1, 0), "a": (1, 1, 5000), "c": (2, 1, 3000)}


def test_a_hand_whose_stack_disagrees_with_the_ledger_is_refused_naming_the_seat_and_both_figures() -> None:
    run = replay(
        opened(payouts=[5000, 3000]), entry("a"), entry("b"), closed(),
        all_in("h1", [(1, "a", 1000, 100), (2, "b", 1200, 100)]),
    )  # fmt: skip
    (refusal,) = run.refused
    assert refusal.code == "stack_mismatch"
    assert "seat 2" in refusal.message
    assert "1200" in refusal.message
    assert "1000" in refusal.message


def test_a_seat_without_an_entry_in_play_is_refused() -> None:
    run = replay(opened(), entry("a"), all_in("h1", [(1, "a", 1000, 100), (2, "zed", 1000, 100)]))
    assert [(r.code, "zed" in r.message) for r in run.refused] == [("not_entered", True)]


def test_a_hand_of_a_tournament_never_opened_settles_as_any_hand() -> None:
    run = replay(all_in("h1", [(1, "a", 1000, 100), (2, "b", 1200, 100)], tid="never-opened"))
    assert run.refused == []
    assert len(run.results) == 1


def test_messages_sent_again_are_duplicates_and_change_nothing() -> None:
    run = replay(opened(payouts=[5000]), entry("a"), closed())
    assert [run.feed_line(line).outcome for line in (opened(payouts=[5000]), entry("a"), closed())] == [  # type: ignore[union-attr]
        "duplicate",
        "duplicate",
        "duplicate",
    ]
    assert [run.feed_line(line).outcome for line in (opened(payouts=[1]), entry("a", 999), entry("z"))] == [  # type: ignore[union-attr]
        "rejected",
        "rejected",
        "rejected",
    ]
    assert [r.code for r in run.refused] == ["tournament_exists", "entry_conflict", "registration_closed"]


def test_a_progressive_bounty_added_to_a_head_is_checked_in_the_next_hand() -> None:
    lines = [
        opened(payouts=PAYOUTS, bounty_cash_ppm=500_000),
        entry("a", bounty=1000), entry("b", bounty=1000), entry("c", bounty=1000), closed(),
        all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)], bounties={1: 1000, 2: 1000}, cash_ppm=500_000),
    ]  # fmt: skip
    run = replay(*lines)
    assert run.refused == []
    stale = all_in("h2", [(1, "a", 2000, 10), (3, "c", 1000, 10)], bounties={1: 1000, 3: 1000}, cash_ppm=500_000)
    assert run.feed_line(stale).refused.code == "bounty_mismatch"  # type: ignore[union-attr]
    fresh = all_in("h2", [(1, "a", 2000, 10), (3, "c", 1000, 10)], bounties={1: 1500, 3: 1000}, cash_ppm=500_000)
    assert run.feed_line(fresh).outcome == "settled"  # type: ignore[union-attr]


def test_a_knockout_hand_without_bounties_is_settled_from_the_heads_in_the_ledger() -> None:
    run = replay(
        opened(payouts=PAYOUTS, bounty_cash_ppm=500_000),
        entry("a", bounty=1000), entry("b", bounty=1000), entry("c", bounty=1000), closed(),
        all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),
    )  # fmt: skip
    (settled,) = run.results
    (award,) = settled.bounties
    assert [(w.seat, w.cash, w.added) for w in award.winners] == [(1, 500, 500)]
    _, playing = run.book.standings("T")
    assert [(e.player_id, e.bounty, e.bounty_cash) for e in playing] == [("a", 1500, 500), ("c", 1000, 0)]


def test_a_tournament_message_giving_a_key_twice_is_refused_not_read_on_its_last_value() -> None:
    line = entry("a", 1000)[:-2] + ', "stack": 9000}}'
    run = replay(opened(), line)
    assert [r.code for r in run.refused] == ["duplicate_key"]
    assert "1000 and 9000" in run.refused[0].message


def test_a_tournament_without_bounties_may_leave_bounty_cash_ppm_out_as_producers_dumping_without_nulls_do() -> None:
    doc = json.loads(opened(payouts=[10]))
    del doc["tournament"]["bounty_cash_ppm"]
    run = replay(
        json.dumps(doc), entry("a"), entry("b"), closed(), all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)])
    )
    assert run.refused == []
    assert places(run) == {"a": (1, 1, 10), "b": (2, 1, 0)}


def test_a_tournament_file_may_hold_pretty_printed_documents() -> None:
    pretty = [json.dumps(json.loads(line), indent=2) for line in (opened(payouts=[10]), entry("a"), entry("b"))]
    run = replay(
        *"\n".join([*pretty, closed(), all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)])]).split("\n")
    )
    assert run.refused == []
    assert places(run) == {"a": (1, 1, 10), "b": (2, 1, 0)}


def test_a_rebuy_adds_chips_the_next_hand_starts_with_and_is_applied_once() -> None:
    run = replay(
        opened(payouts=PAYOUTS), entry("a"), entry("b"), entry("c"),
        all_in("h1", [(1, "a", 1000, 600), (2, "b", 1000, 600)]),  # a wins: b keeps 400
        chips("b", 1000), chips("b", 1000),  # the second is the first sent again
    )  # fmt: skip
    assert run.refused == []
    assert run.feed_line(all_in("h2", [(2, "b", 1400, 10), (3, "c", 1000, 10)])).outcome == "settled"  # type: ignore[union-attr]
    assert run.feed_line(all_in("h3", [(2, "b", 2400, 10), (3, "c", 1000, 10)])).refused.code == "stack_mismatch"  # type: ignore[union-attr]


def test_an_add_on_after_registration_closed_counts_and_the_entry_still_finishes_in_its_place() -> None:
    run = replay(
        opened(payouts=PAYOUTS), entry("a"), entry("b"), entry("c"), closed(),
        chips("b", 1500, kind="add_on"),
        all_in("h1", [(2, "b", 2500, 1000), (1, "a", 1000, 1000)]),  # b (listed first) wins a's 1000
        all_in("h2", [(2, "b", 3500, 1000), (3, "c", 1000, 1000)]),
    )  # fmt: skip
    assert run.refused == []
    assert places(run) == {"a": (3, 1, 2000), "c": (2, 1, 3000), "b": (1, 1, 5000)}


def test_a_purchase_repeated_with_other_figures_or_out_of_turn_or_for_an_entry_not_in_play_is_refused() -> None:
    run = replay(
        opened(payouts=PAYOUTS), entry("a"), entry("b"), entry("c"), closed(), chips("a", 500),
        chips("a", 700), chips("a", 500, purchase=3), chips("zed", 500),
        all_in("h1", [(1, "a", 1500, 1000), (2, "b", 1000, 1000)]), chips("b", 500),
    )  # fmt: skip
    assert [(r.code, r.message) for r in run.refused] == [
        ("purchase_conflict", "purchase 1 of entry 1 of 'a' was applied already with other figures (500 chips)"),
        ("purchase_conflict", "3 is not the next purchase of entry 1 of 'a' (2)"),
        ("not_entered", "entry 1 of 'zed' was never registered in tournament 'T'"),
        ("not_entered", "entry 1 of 'b' is not in play (finished): only an entry in play buys chips"),
    ]


def test_a_knockout_purchase_adds_to_the_head_and_bounty_money_stays_conserved() -> None:
    run = replay(
        opened(payouts=PAYOUTS, bounty_cash_ppm=500_000),
        entry("a", bounty=1000), entry("b", bounty=1000), entry("c", bounty=1000), closed(),
        chips("b", 1000, bounty=1000),
        all_in("h1", [(2, "b", 2000, 1000), (1, "a", 1000, 1000)], bounties={2: 2000, 1: 1000}, cash_ppm=500_000),
        all_in("h2", [(2, "b", 3000, 1000), (3, "c", 1000, 1000)], bounties={2: 2500, 3: 1000}, cash_ppm=500_000),
    )  # fmt: skip
    assert run.refused == []
    ledger = run.book.ledgers["T"]
    assert ledger is not None
    ledger.check_bounties()  # raises unless cash paid + heads == put up (entries and purchases)
    (winner,) = [e for e in ledger.entries.values() if e.place == 1]
    assert (winner.player_id, winner.bounty, winner.bounty_cash) == ("b", 0, 500 + 500 + 3000)


def test_an_entry_held_in_an_incomplete_hand_for_hand_round_cannot_buy_chips() -> None:
    run = replay(
        opened(payouts=PAYOUTS), entry("a"), entry("b"), entry("c"), entry("d"), closed(),
        all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)], round_=1),
        chips("b", 500),
    )  # fmt: skip
    assert [(r.code, r.message) for r in run.refused] == [
        ("not_entered", "entry 1 of 'b' is not in play (eliminated in hand-for-hand round 1, not yet complete): "
         "only an entry in play buys chips"),
    ]  # fmt: skip
