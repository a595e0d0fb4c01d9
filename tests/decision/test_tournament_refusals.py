"""Issue 24's ledger refusals: what a tournament's ledger will not take, said in words that name the field (items 1,
5, 6, 7, 8 and 14). Through the in-process replay the auditors run, and the worker where the worker's own path is
what is tested."""

from __future__ import annotations

import json
from typing import Any

import fakeredis
import orjson
import pytest
from structlog.testing import capture_logs

from showdown_rules import MAX_CHIPS
from showdown_service.decision.tournament_replay import TournamentReplay
from showdown_service.infra.streams import read_range
from showdown_service.worker import planning as worker_planning
from showdown_service.worker.loop import Worker
from tests.tournament_builders import all_in, chips, closed, entry, opened, places, replay, round_complete


def _refused(run: TournamentReplay) -> list[tuple[str, str]]:
    return [(r.code, r.message) for r in run.refused]


def _with(line: str, **fields: Any) -> str:
    """A hand line with top-level fields replaced."""
    doc = json.loads(line)
    doc["event"].update(fields)
    return json.dumps(doc)


# --- item 1: an exception while planning --------------------------------------------------------------------------


def test_item1_an_exception_while_planning_counts_like_one_while_preparing_then_poison_with_a_log_line(
    fake: fakeredis.FakeRedis, make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 1: planning raised (the ledger store's encoding, once) and the worker exited on every delivery, the
    whole batch pending forever. Now the entry whose planning raises is counted as a failure of settling (logged),
    the rest of its batch settles, and at `max_deliveries` it is dead-lettered `poison`."""
    settings = make_settings(claim_idle_ms=100, max_deliveries=3)
    keys = settings.keys("default")
    real = worker_planning.plan  # type: ignore[attr-defined]

    def explode_on_cursed(*args: Any, **kwargs: Any) -> Any:
        batch = args[1]
        if any(p.tournament_message is not None and p.tournament_message.type == "round_complete" for p in batch):
            raise TypeError("Integer exceeds 64-bit range")
        return real(*args, **kwargs)

    monkeypatch.setattr(worker_planning, "plan", explode_on_cursed)  # the worker's planning part plans
    hand = all_in("h1", [(1, "a", 1000, 100), (2, "b", 1000, 100)])
    for line in [opened(payouts=[100]), entry("a"), entry("b"), closed(), round_complete(1), hand]:
        ((field, body),) = orjson.loads(line).items()
        fake.xadd(keys.events, {field: orjson.dumps(body)})
    worker = Worker(settings, fake)
    with capture_logs() as logs:
        worker.run(until_idle=True, timeout_s=15)  # its failing entry claimed again (idle >= 100 ms) until poison
    ((_, letter),) = read_range(fake, keys.dead)
    assert letter[b"code"] == b"poison"
    assert b"raised 3 times" in letter[b"message"]
    failed = [line for line in logs if line["event"] == "entry_failed"]
    assert [line["failures"] for line in failed] == [1, 2, 3]
    assert failed[-1]["then"] == "dead-lettered as poison"
    outcomes = [orjson.loads(f[b"audit"])["outcome"] for _, f in read_range(fake, keys.audit)]
    assert outcomes == ["settled"] * 4 + ["poison", "settled"], "the rest of the batch settled, the hand after it"
    assert fake.xpending(keys.events, settings.group)["pending"] == 0


# --- item 5: hand-for-hand slip -----------------------------------------------------------------------------------


def test_item5_a_hand_without_its_round_while_a_round_is_open_is_refused_round_open_naming_the_round() -> None:
    """Item 5: e busts in hand-for-hand round 1 (held until the round completes); a hand sent without
    `hand_for_hand_round` then busts f. Placed at once, f (out later) finished 5th for nothing below e (out
    first) 4th and paid; the hand is refused instead, and sent with its round the two are placed together."""
    start = [
        opened(payouts=[500, 300, 200, 100]), *(entry(p) for p in "abcf"), entry("e", 800), closed(),
        all_in("h1", [(1, "a", 1000, 800), (2, "e", 800, 800)], table="table-1", round_=1),
    ]  # fmt: skip
    slipped = all_in("h2", [(1, "b", 1000, 1000), (2, "f", 1000, 1000)], table="table-2")
    run = replay(*start, slipped)
    ((code, message),) = _refused(run)
    assert code == "round_open"
    assert message.startswith("hand_for_hand_round: ")
    assert "round 1" in message
    assert "'T'" in message
    assert places(run) == {}, "nothing placed: e waits for its round"
    resent = all_in("h2", [(1, "b", 1000, 1000), (2, "f", 1000, 1000)], table="table-2", round_=1)
    run = replay(*start, slipped, resent, round_complete(1))
    assert places(run) == {"f": (4, 1, 100), "e": (5, 1, 0)}  # one round: the bigger starting stack finishes higher


def test_item5_a_round_is_open_from_its_first_hand_busts_or_not_until_round_complete() -> None:
    """Item 5: round 2 has begun (a hand of it came, nobody busted yet): a hand without its round is still refused,
    and after `round_complete` 2 hands without a round settle again."""
    start = [
        opened(payouts=[500, 300]), *(entry(p) for p in "abcd"), closed(),
        all_in("h1", [(1, "a", 1000, 100), (2, "b", 1000, 100)], round_=2),
    ]  # fmt: skip
    unnumbered = all_in("h2", [(3, "c", 1000, 100), (4, "d", 1000, 100)], table="table-2")
    run = replay(*start, unnumbered)
    assert [code for code, _ in _refused(run)] == ["round_open"]
    assert "round 2 of tournament 'T' is not complete" in run.refused[0].message
    assert replay(*start, round_complete(2), unnumbered).refused == []


# --- item 6: every prize announced is paid -------------------------------------------------------------------------


def test_item6_payouts_longer_than_the_field_are_refused_when_registration_closes() -> None:
    """Item 6: 3 entries and 4 prizes: the 4th place does not exist, its 100 would never be paid."""
    run = replay(opened(payouts=[500, 300, 200, 100]), entry("a"), entry("b"), entry("c"), closed())
    ((code, message),) = _refused(run)
    assert code == "bad_payouts"
    assert message.startswith("payouts: ")
    assert "4 places" in message
    assert "3 entries" in message
    assert "100" in message


def test_item6_every_prize_announced_is_paid_once_the_payouts_fit_the_field() -> None:
    """Item 6: the corrected close (or one whose extra places pay 0) pays out exactly what it announced."""
    for payouts in ([600, 300, 100], [600, 300, 100, 0, 0]):
        run = replay(
            opened(payouts=[500, 300, 200, 100]), entry("a"), entry("b"), entry("c"), closed(payouts=payouts),
            all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),
            all_in("h2", [(1, "a", 2000, 1000), (3, "c", 1000, 1000)]),
        )  # fmt: skip
        assert run.refused == []
        assert places(run) == {"a": (1, 1, 600), "b": (3, 1, 100), "c": (2, 1, 300)}
        assert sum(p["prize"] for p in run.placements) == sum(payouts)


def test_item6_registration_closing_with_no_prize_announced_is_refused() -> None:
    """Item 6: `open` may leave the payouts empty (the pool is known at the close), but the close must announce
    them: a satellite with none ended at registration with everyone tied 1st for 0."""
    run = replay(opened(payouts=[], satellite=True), entry("a"), entry("b"), entry("c"), closed())
    ((code, message),) = _refused(run)
    assert code == "bad_payouts"
    assert message.startswith("payouts: ")
    assert "announce" in message
    assert places(run) == {}


def test_item6_a_satellites_seats_are_prizes_of_the_seats_value() -> None:
    """Item 6: two seats worth 21,500 each among four entries: the last two share 1st, a seat each."""
    run = replay(
        opened(payouts=[], satellite=True), *(entry(p) for p in "abcd"), closed(payouts=[21500, 21500]),
        all_in("h1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)]),
        all_in("h2", [(3, "c", 1000, 1000), (4, "d", 1000, 1000)]),
    )  # fmt: skip
    assert run.refused == []
    assert places(run) == {"a": (1, 2, 21500), "b": (4, 1, 0), "c": (1, 2, 21500), "d": (3, 1, 0)}


# --- item 7: a purchase past the limit ---------------------------------------------------------------------------


def test_item7_a_purchase_taking_a_stack_past_10_15_is_refused_and_the_tournament_still_ends() -> None:
    """Item 7: the rebuy would take a's stack past 10^15, after which every hand of a was refused `bad_chips`
    and the tournament could never end; the purchase is refused and the tournament plays on."""
    big = MAX_CHIPS - 1000
    run = replay(
        opened(payouts=[100]), entry("a", big), entry("b", 1000), chips("a", 1),
        closed(), all_in("h1", [(1, "a", big, 1000), (2, "b", 1000, 1000)]),
    )  # fmt: skip
    ((code, message),) = _refused(run)
    assert code == "chips_limit"
    assert message.startswith("chips: ")
    assert "purchase 1 of entry 1 of 'a'" in message
    assert "10^15" in message
    assert places(run) == {"a": (1, 1, 100), "b": (2, 1, 0)}


def test_item7_a_purchase_taking_a_bounty_past_10_15_is_refused() -> None:
    """Item 7: the bounty bought would put more than 10^15 on heads (a head past it could not be sent)."""
    run = replay(
        opened(payouts=[100], bounty_cash_ppm=500_000), entry("a", bounty=MAX_CHIPS), entry("b", bounty=0),
        chips("a", 10, bounty=1),
    )  # fmt: skip
    ((code, message),) = _refused(run)
    assert code == "chips_limit"
    assert message.startswith("bounty: ")


def test_item7_an_entry_taking_the_chips_in_play_past_10_15_is_refused() -> None:
    """Item 7: two stacks of 6 x 10^14 are each valid, but the winner of the two would hold 1.2 x 10^15 chips,
    which no hand may say: the chips in play in one tournament stay within 10^15."""
    run = replay(opened(payouts=[100]), entry("a", 6 * 10**14), entry("b", 6 * 10**14))
    ((code, message),) = _refused(run)
    assert code == "chips_limit"
    assert message.startswith("stack: ")
    assert "entry 1 of 'b'" in message


# --- item 8: no rake in a tournament; bounty_cash_ppm must match ---------------------------------------------------


def test_item8_rake_in_a_hand_of_an_opened_tournament_is_refused() -> None:
    """Item 8: chips may not leave a tournament: 3,000 in, 2,950 held before."""
    hand = _with(all_in("h1", [(1, "a", 1000, 500), (2, "b", 1000, 500), (3, "c", 1000, 0)]), rake=50)
    run = replay(opened(payouts=[100]), entry("a"), entry("b"), entry("c"), closed(), hand)
    ((code, message),) = _refused(run)
    assert code == "tournament_rake"
    assert message.startswith("rake: 50 ")
    _, playing = run.book.standings("T")
    assert sum(e.chips for e in playing) == 3000


@pytest.mark.parametrize(("tournament_ppm", "hand_ppm"), [(500_000, 1_000_000), (None, 500_000), (1_000_000, 0)])
def test_item8_a_hand_whose_bounty_cash_ppm_differs_is_bounty_mismatch_even_without_seat_bounties(
    tournament_ppm: int | None, hand_ppm: int
) -> None:
    """Item 8: docs/tournaments.md: a hand's `bounty_cash_ppm`, when given, equals the tournament's."""
    bounty = None if tournament_ppm is None else 100
    run = replay(
        opened(payouts=[100], bounty_cash_ppm=tournament_ppm), entry("a", bounty=bounty), entry("b", bounty=bounty),
        closed(), all_in("h1", [(1, "a", 1000, 500), (2, "b", 1000, 500)], cash_ppm=hand_ppm),
    )  # fmt: skip
    ((code, message),) = _refused(run)
    assert code == "bounty_mismatch"
    assert message.startswith(f"bounty_cash_ppm: {hand_ppm} ")
    ok = replay(
        opened(payouts=[100], bounty_cash_ppm=tournament_ppm), entry("a", bounty=bounty), entry("b", bounty=bounty),
        closed(), all_in("h1", [(1, "a", 1000, 500), (2, "b", 1000, 500)], cash_ppm=tournament_ppm),
    )  # fmt: skip
    assert ok.refused == []


# --- item 14: four refusals name their field, in sentences ----------------------------------------------------------


def test_item14_bounty_required_names_the_field_the_entry_and_the_tournament() -> None:
    run = replay(opened(payouts=[100], bounty_cash_ppm=500_000), entry("a"))
    assert _refused(run) == [
        (
            "bounty_required",
            "bounty: entry 1 of 'a' gives no bounty, but tournament 'T' pays knockout bounties: give the bounty "
            "put on the entry's head.",
        )
    ]


def test_item14_bounty_not_expected_names_the_field_in_an_entry_a_purchase_and_a_hand() -> None:
    run = replay(
        opened(payouts=[100]), entry("a", bounty=500), entry("a"), entry("b"), chips("a", 10, bounty=7),
    )  # fmt: skip
    assert [code for code, _ in _refused(run)] == ["bounty_not_expected", "bounty_not_expected"]
    assert _refused(run)[0][1] == (
        "bounty: entry 1 of 'a' gives a bounty of 500, but tournament 'T' was opened without bounties: leave it out."
    )
    assert _refused(run)[1][1] == (
        "bounty: purchase 1 of entry 1 of 'a' buys a bounty of 7, but tournament 'T' was opened without bounties: "
        "leave it out."
    )


def test_item14_a_seat_bounty_in_a_tournament_without_bounties_names_the_seat() -> None:
    hand = all_in("h1", [(1, "a", 1000, 500), (2, "b", 1000, 500)], bounties={1: 0, 2: 9}, cash_ppm=1_000_000)
    run = replay(opened(payouts=[100], bounty_cash_ppm=None), entry("a"), entry("b"), closed(), hand)
    assert _refused(run) == [
        (
            "bounty_not_expected",
            "players[1].bounty (seat 2): 'b' has a bounty of 9 here, but tournament 'T' was opened without bounties: "
            "leave the bounties out.",
        )
    ]
    zero = all_in("h1", [(1, "a", 1000, 500), (2, "b", 1000, 500)], bounties={1: 0, 2: 0}, cash_ppm=1_000_000)
    assert replay(opened(payouts=[100]), entry("a"), entry("b"), closed(), zero).refused == [], "bounties of 0 are none"


def test_item14_bounty_mismatch_names_the_field() -> None:
    run = replay(
        opened(payouts=[100], bounty_cash_ppm=500_000), entry("a", bounty=100), entry("b", bounty=100), closed(),
        all_in("h1", [(1, "a", 1000, 500), (2, "b", 1000, 500)], bounties={1: 100, 2: 100}, cash_ppm=1_000_000),
    )  # fmt: skip
    assert _refused(run) == [
        (
            "bounty_mismatch",
            "bounty_cash_ppm: 1000000 is given, but tournament 'T' pays 500000 of each bounty as cash.",
        )
    ]


def test_item14_tournament_stacks_missing_names_the_field_and_the_seat() -> None:
    hand = json.loads(all_in("h1", [(1, "a", 1000, 500), (2, "b", 1000, 500)]))
    for p in hand["event"]["players"]:
        del p["stack"]
    run = replay(opened(payouts=[100]), entry("a"), entry("b"), closed(), json.dumps(hand))
    assert _refused(run) == [
        (
            "tournament_stacks_missing",
            "players[0].stack (seat 1): is missing, but every hand of tournament 'T' gives each seat's starting "
            "stack (the ledger checks each against its entry's chips).",
        )
    ]
