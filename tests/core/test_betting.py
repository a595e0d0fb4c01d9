"""The betting state machine (showdown_core.betting): a test per rule it enforces, named for the rule, and the real
Pluribus hands played through it (tests/core/test_betting_pokerkit.py referees it against pokerkit)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from showdown_core.betting import BettingError, Hand, Machine, Played, form_of, play
from tests.helpers import SHARED_DATA

PLURIBUS = SHARED_DATA / "phh" / "pluribus"

DEAL6 = ("d dh p1 AsKs", "d dh p2 QdQc", "d dh p3 7h2c", "d dh p4 9s9d", "d dh p5 JcTc", "d dh p6 4d4h")


def nl(*actions: str, stacks: tuple[int, ...] = (1000,) * 6, **fields: object) -> Hand:
    """A six-handed no-limit hold'em hand, blinds 5/10, these actions after the deal."""
    n = len(stacks)
    blinds = (5, 10, *(0,) * (n - 2))
    base: dict[str, object] = {"variant": "NT", "antes": (0,) * n, "blinds_or_straddles": blinds, "min_bet": 10}
    base.update(fields)
    return Hand(starting_stacks=stacks, actions=(*DEAL6[:n], *actions), **base)  # type: ignore[arg-type]


def refused(hand: Hand) -> BettingError:
    with pytest.raises(BettingError) as caught:
        play(hand)
    return caught.value


def test_a_hand_everybody_folds_to_the_big_blind_returns_the_uncalled_small_blind_difference() -> None:
    got = play(nl("p3 f", "p4 f", "p5 f", "p6 f", "p1 f"))
    assert got.contributed == (5, 10, 0, 0, 0, 0)
    assert got.returned == (0, 5, 0, 0, 0, 0)
    assert got.net_contributed == (5, 5, 0, 0, 0, 0)
    assert got.folded == (True, False, True, True, True, True)
    assert got.folded_on == ("preflop", None, "preflop", "preflop", "preflop", "preflop")
    assert got.stacks == (995, 995, 1000, 1000, 1000, 1000)
    assert got.saw_flop is False


def test_a_hand_played_to_the_river_gives_contributions_folds_streets_and_board() -> None:
    got = play(
        nl(
            *("p3 cbr 30", "p4 f", "p5 cc", "p6 f", "p1 f", "p2 cc"),
            *("d db 2s3h8c", "p2 cc", "p3 cbr 40", "p5 cc", "p2 f"),
            *("d db Kd", "p3 cc", "p5 cbr 100", "p3 cc"),
            *("d db 5h", "p3 cc", "p5 cc", "p3 sm 7h2c", "p5 sm"),
        )
    )
    assert got.contributed == (5, 30, 170, 0, 170, 0)
    assert got.folded == (True, True, False, True, True, True)  # p5 mucked at the showdown
    assert got.folded_on == ("preflop", "flop", None, "preflop", "showdown", "preflop")
    assert got.board == ("2s", "3h", "8c", "Kd", "5h")
    assert got.saw_flop is True
    assert got.stacks == (995, 970, 830, 1000, 830, 1000)


def test_out_of_turn_tda_rule_53_names_the_action_the_player_and_who_was_to_act() -> None:
    error = refused(nl("p4 f"))
    assert (error.code, error.index, error.player) == ("out_of_turn", 6, 4)
    assert error.field == "play.actions[6]"
    assert "p3 is to act, not p4" in error.message


def test_out_of_turn_a_board_dealt_while_the_betting_is_open() -> None:
    error = refused(nl("p3 cc", "d db 2s3h8c"))
    assert error.code == "out_of_turn"
    assert "while p4 is still to act" in error.message


def test_raise_below_minimum_tda_rule_43_the_last_raise_sets_the_least_raise() -> None:
    assert refused(nl("p3 cbr 15")).code == "raise_below_minimum"  # the least raise is to 20 (by the big blind)
    error = refused(nl("p3 cbr 40", "p4 cbr 60"))  # 40 raised by 30: the least re-raise is to 70
    assert (error.code, error.index, error.player) == ("raise_below_minimum", 7, 4)
    assert "to 70" in error.message
    play(nl("p3 cbr 40", "p4 cbr 70", *("p5 f", "p6 f", "p1 f", "p2 f", "p3 f")))


def test_raise_below_minimum_is_allowed_all_in() -> None:
    got = play(nl("p3 cbr 40", "p4 cbr 55", *("p5 f", "p6 f", "p1 f", "p2 f", "p3 cc"), "d db 2s3h8c", "d db Kd",
                  "d db 5h", stacks=(1000, 1000, 1000, 55, 1000, 1000)))  # fmt: skip
    assert got.contributed[3] == 55


def test_raise_below_minimum_a_bet_below_min_bet_after_the_flop() -> None:
    error = refused(nl("p3 cc", "p4 f", "p5 f", "p6 f", "p1 f", "p2 cc", "d db 2s3h8c", "p2 cbr 5"))
    assert error.code == "raise_below_minimum"
    assert "least bet is to 10" in error.message


def test_betting_not_reopened_tda_rule_47_a_short_all_in_does_not_reopen_the_betting() -> None:
    stacks = (1000, 1000, 1000, 1000, 150, 1000)
    # p3 raises to 100 (by 90); p5 is all-in to 150, short of the full raise to 190: p3, who acted, may not raise
    before = ("p3 cbr 100", "p4 f", "p5 cbr 150", "p6 cc", "p1 f", "p2 f")
    error = refused(nl(*before, "p3 cbr 300", stacks=stacks))
    assert (error.code, error.index, error.player) == ("betting_not_reopened", 12, 3)
    assert "Rule 47" in error.message
    streets = ("d db 2s3h8c", "p3 cc", "p6 cc", "d db Kd", "p3 cc", "p6 cc", "d db 5h", "p3 cc", "p6 cc")
    got = play(nl(*before, "p3 cc", *streets, stacks=stacks))
    assert got.contributed == (5, 10, 150, 0, 150, 150)


def test_betting_not_reopened_a_player_yet_to_act_may_raise_a_short_all_in() -> None:
    stacks = (1000, 1000, 1000, 1000, 150, 1000)
    got = play(nl("p3 cbr 100", "p4 f", "p5 cbr 150", "p6 cbr 400", "p1 f", "p2 f", "p3 f", stacks=stacks))
    assert got.contributed == (5, 10, 100, 0, 150, 400)
    assert got.returned[5] == 250


def test_bet_beyond_stack_table_stakes() -> None:
    error = refused(nl("p3 cbr 1200"))
    assert (error.code, error.player) == ("bet_beyond_stack", 3)
    assert "has 1000 behind" in error.message


def test_acted_after_fold() -> None:
    error = refused(nl("p3 f", "p4 f", "p5 f", "p6 f", "p1 cc", "p2 cc", "d db 2s3h8c", "p3 cc"))
    assert (error.code, error.index, error.player) == ("acted_after_fold", 13, 3)
    assert "folded (preflop)" in error.message


def test_acted_after_all_in() -> None:
    stacks = (1000, 1000, 100, 1000, 1000, 1000)
    hand = nl("p3 cbr 100", "p4 cc", "p5 f", "p6 f", "p1 f", "p2 f", "d db 2s3h8c", "p3 cc", stacks=stacks)
    error = refused(hand)
    assert (error.code, error.player) == ("acted_after_all_in", 3)


def test_check_facing_a_bet_cannot_be_written_in_phh_cc_calls() -> None:
    """phh-std's ``cc`` is check-or-call: facing a bet it is played as the call (so a room's "check" facing a bet,
    converted to ``cc``, shows as the chips of a call in ``contributed``, which the event must then state)."""
    got = play(nl("p3 cbr 30", "p4 cc", *("p5 f", "p6 f", "p1 f", "p2 f"), "d db 2s3h8c", "p3 cbr 50", "p4 cc",
                  *("d db Kd", "p3 cc", "p4 cc", "d db 5h", "p3 cc", "p4 cc")))  # fmt: skip
    assert got.contributed[3] == 80


def test_forced_bet_mismatch_a_bring_in_other_than_the_declared_one() -> None:
    hand = Hand(
        "F7S", (100, 100, 100), ("d dh p1 ????Ac", "d dh p2 ????2c", "d dh p3 ????Kc", "p2 pb 5"),
        antes=(1, 1, 1), bring_in=2, small_bet=4, big_bet=8,
    )  # fmt: skip
    error = refused(hand)
    assert (error.code, error.index, error.player) == ("forced_bet_mismatch", 3, 2)
    assert "declared bring_in is 2" in error.message


def test_forced_bet_mismatch_blinds_that_fall_or_stakes_that_are_missing() -> None:
    error = refused(nl(blinds_or_straddles=(10, 5, 0, 0, 0, 0)))
    assert (error.code, error.field) == ("forced_bet_mismatch", "play.blinds_or_straddles")
    assert refused(nl(blinds_or_straddles=(5, 10, 0, 0, 0))).field == "play.blinds_or_straddles"
    assert refused(nl(min_bet=0)).field == "play.min_bet"
    assert refused(nl(variant="FT")).field == "play.small_bet"


def test_bad_board_street_a_board_of_the_wrong_size_for_the_street() -> None:
    error = refused(nl("p3 f", "p4 f", "p5 f", "p6 f", "p1 cc", "p2 cc", "d db 2s3h"))
    assert (error.code, error.index) == ("bad_board_street", 12)
    assert "the flop is 3" in error.message
    error = refused(nl("p3 f", "p4 f", "p5 f", "p6 f", "p1 cc", "p2 cc", "d db 2s3h8c", "p1 cc", "p2 cc", "d db KdKh"))
    assert "the turn is 1" in error.message


def test_raise_above_limit_pot_limit_and_fixed_limit() -> None:
    # pot limit, blinds 5/10: p3 may raise to 10 + (15 + 10) = 35 at most
    assert refused(nl("p3 cbr 40", variant="PT")).code == "raise_above_limit"
    play(nl("p3 cbr 35", *("p4 f", "p5 f", "p6 f", "p1 f", "p2 f"), variant="PT"))
    fixed: dict[str, Any] = {"variant": "FT", "min_bet": 0, "small_bet": 10, "big_bet": 20}
    assert refused(nl("p3 cbr 30", **fixed)).code == "raise_above_limit"
    assert refused(nl("p3 cbr 15", **fixed)).code == "raise_below_minimum"
    capped = nl("p3 cbr 20", "p4 cbr 30", "p5 cbr 40", "p6 cbr 50", "p1 cbr 60", **fixed)
    error = refused(capped)
    assert (error.code, error.index) == ("raise_above_limit", 10)
    assert "capped" in error.message


def test_bad_action_and_incomplete_play() -> None:
    assert refused(nl("p3 raise 30")).code == "bad_action"
    assert refused(nl("p9 f")).code == "bad_action"
    error = refused(nl("p3 f", "p4 f"))
    assert (error.code, error.player) == ("incomplete_play", 5)


def test_a_stud_hand_opens_with_the_bring_in_and_completes_to_the_small_bet() -> None:
    hand = Hand(
        "F7S",
        (100, 100, 100),
        ("d dh p1 ????Ac", "d dh p2 ????2c", "d dh p3 ????Kc", "p2 pb", "p3 cbr 4", "p1 f", "p2 cc",
         "d dh p2 3c", "d dh p3 3d", "p3 cbr 4", "p2 f"),
        antes=(1, 1, 1), bring_in=2, small_bet=4, big_bet=8,
    )  # fmt: skip
    got = play(hand)
    assert got.dead_money == (1, 1, 1)
    assert got.contributed == (0, 4, 8)
    assert got.folded_on == ("third", "fourth", None)


def test_a_draw_hand_draws_between_betting_rounds() -> None:
    hand = Hand(
        "F2L3D",
        (100, 100, 100),
        ("d dh p1 7c5d4h3s2c", "d dh p2 KsKdQcJh9d", "d dh p3 8c8d6s5h3h", "p3 cc", "p1 cc", "p2 cc",
         "p1 sd", "p2 sd KsKd", "d dh p2 7d6c", "p3 sd 8c", "d dh p3 4c",
         "p1 cbr 2", "p2 f", "p3 f"),
        blinds_or_straddles=(1, 2, 0), small_bet=2, big_bet=4,
    )  # fmt: skip
    got = play(hand)
    assert got.contributed == (4, 2, 2)
    assert got.returned == (2, 0, 0)
    assert got.folded_on == (None, "first_draw", "first_draw")


def test_heads_up_p1_is_the_big_blind_and_the_button_acts_first_preflop() -> None:
    got = play(nl("p2 cbr 30", "p1 f", stacks=(1000, 1000)))
    assert got.contributed == (10, 30)
    assert got.returned == (0, 20)


def test_every_phh_code_of_the_standard_is_read() -> None:
    codes = {"NT": "holdem", "PO": "omaha", "FO/8": "omaha_hilo", "F7S/8": "stud_hilo", "FR": "razz"}
    for code, variant in {**codes, "N2L1D": "deuce_to_seven", "FB": "badugi", "NS": "short_deck"}.items():
        form = form_of(code)
        assert form is not None
        assert form.variant == variant
    assert form_of("XT") is None
    assert form_of("NZ") is None


def _pluribus(path: Path) -> tuple[dict[str, Any], Played]:
    fields = tomllib.loads(path.read_text())
    hand = Hand(
        str(fields["variant"]),
        tuple(fields["starting_stacks"]),
        tuple(fields["actions"]),
        tuple(fields["antes"]),
        tuple(fields["blinds_or_straddles"]),
        min_bet=int(fields["min_bet"]),
        ante_trimming_status=bool(fields.get("ante_trimming_status", False)),
    )
    return fields, play(hand)


def test_real_pluribus_hands_play_and_their_chips_add_up() -> None:
    """A bounded sample of the 6,844 hands (every 10th): each plays without a refusal; the chips the betting leaves
    and what it put in add up to the starting stacks; a winner-takes-all hand ends at its recorded stacks."""
    paths = sorted(PLURIBUS.rglob("*.phh"))
    assert len(paths) == 6844
    for path in paths[::10]:
        fields, got = _pluribus(path)
        start = list(fields["starting_stacks"])
        assert sum(got.stacks) + sum(got.net_contributed) + sum(got.dead_money) == sum(start), path
        finishing = fields["finishing_stacks"]
        if got.folded.count(False) == 1:  # uncontested: the last seat takes every chip put in
            winner = got.folded.index(False)
            ends = list(got.stacks)
            ends[winner] += sum(got.net_contributed) + sum(got.dead_money)
            assert ends == finishing, path


def test_out_of_turn_a_stud_hand_opens_with_the_bring_in_or_a_completion_never_a_check() -> None:
    hand = Hand(
        "F7S", (100, 100, 100), ("d dh p1 ????Ac", "d dh p2 ????2c", "d dh p3 ????Kc", "p2 cc"),
        antes=(1, 1, 1), bring_in=2, small_bet=4, big_bet=8,
    )  # fmt: skip
    error = refused(hand)
    assert (error.code, error.index, error.player) == ("out_of_turn", 3, 2)
    assert error.reason == "third street opens with the bring-in (pb) or a completion"


def test_out_of_turn_a_bring_in_after_third_street_was_opened() -> None:
    hand = Hand(
        "F7S", (100, 100, 100), ("d dh p1 ????Ac", "d dh p2 ????2c", "d dh p3 ????Kc", "p2 pb", "p3 pb"),
        antes=(1, 1, 1), bring_in=2, small_bet=4, big_bet=8,
    )  # fmt: skip
    assert (refused(hand).code, refused(hand).index) == ("out_of_turn", 4)
    assert refused(nl("p3 pb")).code == "bad_action"  # hold'em has no bring-in at all


def test_the_machine_played_action_by_action_leaves_what_play_leaves_and_says_who_is_to_act() -> None:
    hand = nl("p3 cbr 30", "p4 f", "p5 f", "p6 f", "p1 f", "p2 cc", "d db 2c7d9h", "p2 cc", "p3 cbr 970", "p2 f")
    machine = Machine(hand)
    seen = []
    for k, action in enumerate(hand.actions):
        machine.act(k, action)
        seen.append((machine.to_act, machine.live, machine.able))
    assert machine.finish(len(hand.actions)) == play(hand)
    assert seen[5] == (2, 6, 6)  # the deal done: p3 first to act preflop
    assert seen[11] == (None, 2, 2)  # the flop is to be dealt: nobody to act
    assert seen[12] == (1, 2, 2)  # the flop dealt: p2 first
    assert seen[-1] == (None, 1, 0)  # won: p3 all-in, p2 folded


def test_a_refusal_gives_its_reason_apart_from_the_field_and_the_action() -> None:
    error = refused(nl("p4 cbr 30"))
    assert error.reason == "p3 is to act, not p4"
    assert str(error.rejections[0].message).endswith("'p4 cbr 30': p3 is to act, not p4")
    unfinished = refused(nl("p3 f"))
    assert unfinished.reason == "the actions end while p4 is still to act (preflop)"


def test_the_minimum_raise_increment_is_never_below_min_bet_so_a_call_reopens_at_top_plus_increment() -> None:
    """Machine.act's quick check or call sets a seat's Rule 47 reopening point to ``top + increment`` without
    ``max(increment, min_bet)``: that holds while the increment is never below ``min_bet`` (TDA 2024 Rule 43's
    "previous bet or raise", at least the minimum bet). Checked after every action of every 10th Pluribus hand and
    of hands whose short all-ins and straddles move the increment."""
    hands = [
        nl(  # p4's all-in to 25 is no full raise over 20: the increment stays 10
            *("p3 cbr 20", "p4 cbr 25", "p5 cc", "p6 f", "p1 f", "p2 cc", "p3 cc"),
            stacks=(1000, 1000, 1000, 25, 1000, 1000),
        ),
        nl(*("p3 cc", "p4 f", "p5 f", "p6 f", "p1 cc", "p2 cc", "d db 2c7d9h", "p1 cc", "p2 cbr 10", "p3 cc", "p1 cc")),
        nl("p4 cbr 40", "p5 cc", "p6 cc", "p1 cc", "p2 cc", "p3 cc", blinds_or_straddles=(5, 10, 20, 0, 0, 0)),
    ]
    for path in sorted(PLURIBUS.rglob("*.phh"))[::10]:
        fields = tomllib.loads(path.read_text())
        hands.append(
            Hand(
                fields["variant"],
                tuple(fields["starting_stacks"]),
                tuple(fields["actions"]),
                tuple(fields["antes"]),
                tuple(fields["blinds_or_straddles"]),
                min_bet=fields["min_bet"],
            )
        )
    for hand in hands:
        machine = Machine(hand)
        for k, action in enumerate(hand.actions):
            machine.act(k, action)
            assert machine.increment >= hand.min_bet, (hand.actions[: k + 1], machine.increment)
            mover = int(action.split()[0][1:]) - 1 if action.startswith("p") else None
            if mover is not None and action.endswith(" cc") and machine.reopen_at[mover] is not None:
                assert machine.reopen_at[mover] == machine.top + max(machine.increment, hand.min_bet)
        machine.finish(len(hand.actions))


def test_a_check_or_call_in_turn_played_quickly_leaves_what_the_general_rules_leave() -> None:
    """A call for more than the stack is all-in (table stakes); a check moves no chips; the last fold ends the
    betting: the quick path in Machine.act, against the hand's own totals."""
    short = nl("p3 cbr 300", "p4 cc", "p5 f", "p6 f", "p1 f", "p2 f", stacks=(1000, 1000, 1000, 120, 1000, 1000))
    got = play(short)
    assert got.contributed == (5, 10, 300, 120, 0, 0)
    assert got.returned == (0, 0, 180, 0, 0, 0)
    assert got.stacks[3] == 0
    checked = play(nl("p3 cc", "p4 f", "p5 f", "p6 f", "p1 cc", "p2 cc", "d db 2c7d9h", "p1 cc", "p2 cc", "p3 f"))
    assert checked.contributed == (10, 10, 10, 0, 0, 0)
    assert checked.folded_on == (None, None, "flop", "preflop", "preflop", "preflop")
    assert checked.stacks == (990, 990, 990, 1000, 1000, 1000)


def test_forced_bet_mismatch_is_refused_every_time_even_after_valid_hands_at_the_same_stakes() -> None:
    """The declared fields found valid are remembered (a table's hands repeat them): a hand that differs from them
    in one blind, or repeats an invalid declaration, is still checked and refused."""
    assert play(nl("p3 f", "p4 f", "p5 f", "p6 f", "p1 f")).contributed == (5, 10, 0, 0, 0, 0)
    for _ in range(2):
        error = refused(nl("p3 f", blinds_or_straddles=(10, 5, 0, 0, 0, 0)))
        assert (error.code, error.index) == ("forced_bet_mismatch", None)
        assert refused(nl("p3 f", min_bet=0)).code == "forced_bet_mismatch"
    assert play(nl("p3 f", "p4 f", "p5 f", "p6 f", "p1 f")).returned == (0, 5, 0, 0, 0, 0)
