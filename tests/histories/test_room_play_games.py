"""``play`` beyond no-limit hold'em and Omaha (issue 36): fixed limit (``small_bet``, ``big_bet``), stud (the
bring-in ``pN pb``, the up cards dealt ``d dh``) and draw games (own cards dealt unknown, each discard ``pN sd``)
written by :func:`~showdown_service.histories.room_play.with_play`, so that the replay settles them with the
betting played by the state machine and the settlement still matches the room's recorded outcome.

../shared/data holds no PokerStars hand of these games (its PokerStars files are no-limit hold'em and pot-limit
Omaha): the PokerStars reader is tested on the fixtures written from the rules (tests/fixtures/replay/pokerstars/
games), and the mechanism on a real fixed-limit hand of ../shared/data read by the 888poker reader, its betting
logged here as a reader logs it. A doctored copy of each family is refused by the state machine, and why is
named in the replay's summary."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from showdown_service.cli.commands import main
from showdown_service.histories import pacific, pokerstars
from showdown_service.histories.compare import judge
from showdown_service.histories.export import phh_text
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.room_play import PlayLog, with_play
from tests.helpers import REPO, SHARED_DATA
from tests.histories.test_history_export import read_back, settled

GAMES = REPO / "tests" / "fixtures" / "replay" / "pokerstars" / "games"
FLH_HEADS_UP = SHARED_DATA / "rooms-more" / "Pacific" / "thlorenz-hhp" / "pacific" / "cash.hhsmithy.usd.flh.hu"
REFUSED = "the betting as written is refused by the state machine"


def hands(path: Path, text: str | None = None) -> list[HandRecord]:
    read = list(pokerstars.read_pokerstars(text or path.read_text(encoding="utf-8-sig"), str(path)))
    assert all(isinstance(h, HandRecord) for h in read), read
    return [h for h in read if isinstance(h, HandRecord)]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("stud.txt", "F7S"),
        ("stud_hilo.txt", "F7S/8"),
        ("razz.txt", "FR"),
        ("triple_draw.txt", "F2L3D"),
        ("single_draw.txt", "N2L1D"),
        ("badugi.txt", "FB"),
    ],
)
def test_a_stud_or_draw_hand_of_pokerstars_settles_with_its_play_and_matches(name: str, code: str) -> None:
    (hand,) = hands(GAMES / name)
    assert hand.event is not None
    assert hand.event.play is not None, hand.no_play
    assert hand.event.play.variant == code
    verdict = judge(hand)
    assert (verdict.status, verdict.betting) == ("match", "play")


def test_the_mixed_games_file_plays_razz_triple_draw_and_stud_hilo_each_with_its_own_structure() -> None:
    read = hands(GAMES / "mixed_horse_8game.txt")
    assert [h.event.play.variant for h in read if h.event and h.event.play] == ["FR", "F2L3D", "F7S/8"]
    assert all(judge(h).status == "match" for h in read)


def test_stud_play_has_the_bring_in_the_bets_the_up_cards_and_no_button_or_blinds() -> None:
    (hand,) = hands(GAMES / "stud.txt")
    assert hand.event is not None
    play = hand.event.play
    assert play is not None
    assert (play.bring_in, play.small_bet, play.big_bet, play.min_bet) == (2, 4, 8, None)
    assert play.antes == (1, 1, 1)
    assert play.blinds_or_straddles == (0, 0, 0)  # none, as PHH files write it
    assert [p.seat for p in hand.event.players] == [1, 2, 3]  # seat order: the actions say who opens each street
    assert play.actions[:5] == ("d dh p1 AcKc8c", "d dh p2 ????Tc", "d dh p3 ????2d", "p3 pb", "p1 cbr 4")
    assert "d dh p1 9c" in play.actions  # fourth street, the new card only
    at = play.actions.index("d dh p1 4c")  # seventh street: the own down card, then the other's unknown
    assert play.actions[at + 1] == "d dh p3 ??"
    assert play.actions[-2:] == ("p1 sm AcKc8c9c9dTh4c", "p3 sm 5s5h2d2h6sQh3d")  # the hands shown


@pytest.mark.parametrize("name", ["stud.txt", "stud_hilo.txt", "razz.txt", "triple_draw.txt", "single_draw.txt",
                                  "badugi.txt", "mixed_horse_8game.txt"])  # fmt: skip
def test_each_stud_and_draw_hand_round_trips_through_the_phh_export_to_the_same_settlement(name: str) -> None:
    """Event -> settlement -> PHH -> replay: the same amounts to the same players, the showdown decided from the
    hands shown (the play writes them: its own cards were dealt unknown). PHH has no rake field the replay reads
    (tests/histories/test_room_play.py), so each hand goes without its rake; PHH numbers the seats by player,
    so the awards are compared by player."""
    for hand in hands(GAMES / name):
        assert hand.event is not None
        doc = hand.event.model_dump(mode="json", exclude_none=True)
        doc.pop("rake", None)
        doc.pop("rake_ppm", None)
        result = settled(doc)
        back = read_back(phh_text(doc, result), "phh")
        assert judge(back).status == "match", hand.hand_id
        assert back.event is not None
        again = settled(back.event.model_dump(mode="json", exclude_none=True))
        by_player = {a["player_id"]: a["amount"] for a in result["awards"]}
        assert {a["player_id"]: a["amount"] for a in again["awards"]} == by_player, hand.hand_id


def test_a_draw_games_own_cards_are_dealt_unknown_and_each_discard_is_replaced() -> None:
    (hand,) = hands(GAMES / "triple_draw.txt")
    assert hand.event is not None
    play = hand.event.play
    assert play is not None
    assert (play.small_bet, play.big_bet) == (100, 200)
    assert play.actions[:3] == ("d dh p1 ??????????", "d dh p2 ??????????", "d dh p3 ??????????")
    at = play.actions.index("p1 sd ????")  # Ben (p1, the small blind) discards two, then Ada (the button) one
    assert play.actions[at : at + 4] == ("p1 sd ????", "d dh p1 ????", "p3 sd ??", "d dh p3 ??")
    assert play.actions.count("p1 sd") == 1  # stands pat on the third draw


def test_a_real_fixed_limit_hand_settles_with_its_play_and_matches_the_rooms_outcome() -> None:
    """888poker, $0.06/$0.12 fixed-limit hold'em heads-up ($0.12 and $0.25 bets), its first hand: the betting
    logged as a reader logs it, the event the 888poker reader builds."""
    path = FLH_HEADS_UP / "hands.txt"
    hand = next(iter(pacific.read_pacific(path.read_text(encoding="utf-8"), str(path))))
    assert isinstance(hand, HandRecord)
    assert hand.event is not None
    log = PlayLog()
    log.blind("uyangau", 6, big=False)
    log.blind("Chillwill184", 12, big=True)
    log.actions += [("uyangau", "cc"), ("Chillwill184", "cc"), ("", "db 7cTc7d")]
    log.actions += [("Chillwill184", "cc"), ("uyangau", "cbr 12"), ("Chillwill184", "cc"), ("", "db 2c")]
    log.actions += [("Chillwill184", "cc"), ("uyangau", "cbr 25"), ("Chillwill184", "cc"), ("", "db Ts")]
    log.actions += [("Chillwill184", "cc"), ("uyangau", "cc")]
    event = with_play(hand.event, log, "fixed_limit", 12, 5, str(path), hand.line, small_bet=12, big_bet=25)
    assert event is not None, log.why_not
    assert event.play is not None
    assert (event.play.variant, event.play.small_bet, event.play.big_bet) == ("FT", 12, 25)
    verdict = judge(hand._replace(event=event))
    assert (verdict.status, verdict.betting) == ("match", "play")

    log.actions[4] = ("uyangau", "cbr 25")  # doctored: the flop's bet is the small bet, not the big one
    assert with_play(hand.event, log, "fixed_limit", 12, 5, str(path), hand.line, small_bet=12, big_bet=25) is None
    assert log.why_not == f"{REFUSED} (raise_above_limit)"
    assert "fixed limit: the raise is to 12" in log.detail


def test_fixed_limit_without_its_bets_or_stud_without_its_bring_in_is_named_not_guessed() -> None:
    (hand,) = hands(GAMES / "stud.txt")
    assert hand.event is not None
    log = PlayLog(actions=[("Cal", "pb")])
    assert with_play(hand.event, log, "fixed_limit", None, None, "s", 1, bring_in=2) is None
    assert log.why_not == "fixed limit without its small bet and big bet"
    log = PlayLog()
    assert with_play(hand.event, log, "fixed_limit", None, None, "s", 1, small_bet=4, big_bet=8) is None
    assert log.why_not == "stud without its bring-in"


DOCTORED = [
    # stud: Cal calls before Ben on third street (the bring-in's completion is called clockwise)
    ("stud.txt", ("Ben: calls $0.04\nCal: calls $0.02", "Cal: calls $0.02\nBen: calls $0.04"), "out_of_turn"),
    # triple draw: the button draws before the small blind
    (
        "triple_draw.txt",
        (
            "Ben: discards 2 cards\nAda: discards 1 card [Kh]\nDealt to Ada [7c 5d 3s 2h] [Jd]",
            "Ada: discards 1 card [Kh]\nDealt to Ada [7c 5d 3s 2h] [Jd]\nBen: discards 2 cards",
        ),
        "out_of_turn",
    ),
]


@pytest.mark.parametrize(("name", "swap", "rule"), DOCTORED)
def test_a_doctored_stud_or_draw_hand_is_settled_without_play_and_the_summary_names_why(
    name: str, swap: tuple[str, str], rule: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (GAMES / name).read_text(encoding="utf-8-sig")
    assert swap[0] in text
    doctored = tmp_path / name
    doctored.write_text(text.replace(swap[0], swap[1]), encoding="utf-8")
    (hand,) = hands(doctored)
    assert hand.event is not None
    assert hand.event.play is None
    assert hand.no_play == f"{REFUSED} ({rule})"
    verdict = judge(hand)
    assert verdict.status == "match"  # settled as before, from the stated contributions
    assert verdict.document()["betting"]["why_not"] == hand.no_play
    assert main(["replay", str(doctored)]) == 0
    out = capsys.readouterr().out
    assert "  with the betting played" in out
    assert re.search(rf"^    without: {re.escape(REFUSED)} \({rule}\) +1$", out, re.M), out
