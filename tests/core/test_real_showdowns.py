"""Real hands with known outcomes settle to exactly the recorded award, seat by seat."""

from __future__ import annotations

from collections import Counter

from showdown_messages import VARIANT_SHAPES
from tests.helpers import BUNDLED_SHOWDOWNS, REAL_SHOWDOWNS, VARIANT_SHOWDOWNS, collected, read_cases


def test_all_1177_real_showdowns_settle_to_their_expected_award() -> None:
    assert REAL_SHOWDOWNS.is_file(), f"real hand data missing at {REAL_SHOWDOWNS}"
    wrong = []
    seen: Counter[str] = Counter()
    for case in read_cases(REAL_SHOWDOWNS):
        seen.update(k for k, v in case["categories"].items() if v is True)
        expected = {int(s): amount for s, amount in case["expected_award"].items()}
        got = collected(case["event"])
        if got != expected:
            wrong.append((case["event"]["hand_id"], expected, got))
    assert sum(1 for _ in read_cases(REAL_SHOWDOWNS)) == 1177
    assert wrong == []
    # the data exercises the rules that matter, not just heads-up showdowns
    assert seen["split_pot"] >= 50
    assert seen["odd_chip"] >= 5
    assert seen["side_pot"] >= 2
    assert seen["multiway"] >= 40


def test_the_bundled_examples_settle_to_their_expected_award() -> None:
    cases = list(read_cases(BUNDLED_SHOWDOWNS))
    assert len(cases) == 300
    for case in cases:
        assert collected(case["event"]) == {int(s): a for s, a in case["expected_award"].items()}


def test_the_bundled_hands_of_every_other_game_settle_to_their_award_worked_out_by_hand() -> None:
    cases = list(read_cases(VARIANT_SHOWDOWNS))
    games = {case["event"]["variant"] for case in cases}
    assert games == set(VARIANT_SHAPES)
    assert any(case["event"].get("boards") for case in cases)
    for case in cases:
        assert collected(case["event"]) == {int(s): a for s, a in case["expected_award"].items()}, case["categories"]
