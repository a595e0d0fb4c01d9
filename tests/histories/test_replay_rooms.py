"""The other rooms' readers on their real samples (read in place from ../shared/data/rooms, MIT) and on doctored
copies of them (an amount changed, a winner swapped): every showdown settled, every doctored hand a mismatch."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from showdown_service.cli.commands import main
from showdown_service.histories.compare import Verdict
from showdown_service.histories.errors import ReplayError
from showdown_service.histories.games import HOLDEM, OMAHA_5, OMAHA_5_HILO, OMAHA_HILO, SHORT_DECK, room_game
from showdown_service.histories.hands import HandRecord, Purchase
from showdown_service.histories.run import (
    ACR,
    FULLTILT,
    GGPOKER,
    IPOKER,
    MICROGAMING,
    OHH,
    PACIFIC,
    PARTYPOKER,
    POKERSTARS,
    WINAMAX,
    WPN,
    detect,
    find_files,
    read_file,
    replay_file,
)
from showdown_service.histories.summaries import Summary, read_summary
from tests.helpers import FIXTURES, SHARED_DATA

ROOMS = SHARED_DATA / "rooms"


def _replay_dir(folder: Path) -> tuple[dict[str, str | None], list[Verdict]]:
    files, _ = find_files([str(folder)])
    formats: dict[str, str | None] = {}
    verdicts: list[Verdict] = []
    for source in files:
        result = replay_file(source)
        formats[source] = result.format
        verdicts += result.verdicts
    return formats, verdicts


def _doctored(tmp_path: Path, sample: Path, old: str, new: str) -> list[Verdict]:
    text = sample.read_text(encoding="utf-8-sig")
    assert old in text, f"{old!r} not in {sample}"
    copy = tmp_path / sample.name
    copy.write_text(text.replace(old, new), encoding="utf-8")
    return replay_file(str(copy), named=True).verdicts


# -- 888poker ---------------------------------------------------------------------------


def test_888poker_samples_every_hand_settled_and_matching() -> None:
    formats, verdicts = _replay_dir(ROOMS / "Pacific")
    assert Counter(formats.values()) == {PACIFIC: 36, PARTYPOKER: 2, None: 2}  # two empty files (a byte order mark)
    verdicts = [v for v in verdicts if not v.hand_id.startswith("partypoker:")]
    statuses = Counter(v.status for v in verdicts)
    assert statuses == {"match": 35, "error": 1}, [v.reason for v in verdicts if v.status != "match"]
    assert sum(v.contested for v in verdicts) == 12
    by_id = {v.hand_id: v for v in verdicts}
    allin = by_id["888poker:349444554"]  # AllInHandWithShowdown.txt: 3s3c beat 5h2h, $5.28 uncalled, $4 rake
    assert allin.computed["collected"] == {"4": 19750}
    assert allin.computed["returned"] == {"4": 528}
    assert allin.computed["rake"] == 400
    assert "888poker writes no uncalled bet" in allin.reason


def test_888poker_invalid_sample_names_file_line_and_hand() -> None:
    verdicts = replay_file(str(ROOMS / "Pacific/CashGame/ValidHandTests/InValidHand.txt")).verdicts
    [bad] = verdicts
    assert bad.status == "error"
    assert bad.hand_id == "888poker:539304607"
    assert bad.line == 26
    assert "InValidHand.txt:26" in bad.reason
    assert "2 card(s) do not make a board of 3" in bad.reason


def test_888poker_dead_blind_is_dead_money_and_uncalled_folds_count_in_the_collected_amount() -> None:
    [dead] = replay_file(str(ROOMS / "Pacific/CashGame/HandActionTests/PostingDead.txt")).verdicts
    assert dead.status == "match"
    assert dead.computed["collected"] == {"2": 570}
    [folded] = replay_file(str(ROOMS / "Pacific/CashGame/PlayerTests/NoHoleCards.txt")).verdicts
    assert folded.status == "match"
    assert "counts the uncalled bet in the winner's collected amount" in folded.reason


def test_888poker_doctored_winner_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "Pacific/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    [verdict] = _doctored(tmp_path, sample, "qprcuz collected", "kiss014 collected")
    assert verdict.status == "mismatch", verdict.reason
    assert verdict.kind == "pot award", verdict.reason
    assert "recorded seat 9 (kiss014) 19750, rules give seat 4 (qprcuz)" in verdict.reason


def test_888poker_doctored_amount_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "Pacific/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    [verdict] = _doctored(tmp_path, sample, "collected [ $197.50 ]", "collected [ $197.37 ]")
    # the pot less the collected is $4.13: neither 5% of $201.50 ($10.07) nor a cap (a multiple of $0.50)
    assert verdict.status == "mismatch", verdict.reason
    assert verdict.kind == "rake split", verdict.reason
    assert "recorded seat 4 (qprcuz) 19737, rules give seat 4 (qprcuz) 19143" in verdict.reason


def test_888poker_is_told_by_content_from_partypoker() -> None:
    assert detect("#Game No : 1\n***** 888poker Hand History for Game 1 *****\n$1/$2 Blinds No Limit Holdem - *** x\n")
    assert detect("***** Hand History for Game 1 *****\n$50 USD PL Texas Hold'em - Tuesday\n") != PACIFIC


# -- Winamax ----------------------------------------------------------------------------


def test_winamax_samples_every_hand_settled_and_matching() -> None:
    formats, verdicts = _replay_dir(ROOMS / "Winamax")
    # OmahaHiLo.txt is another room's XML (Microgaming's <Game>): read as that room's hand
    assert Counter(formats.values()) == {WINAMAX: 26, MICROGAMING: 1, None: 1}
    winamax = [v for v in verdicts if v.hand_id.startswith("winamax:")]
    assert Counter(v.status for v in winamax) == {"match": 35}, [v.reason for v in winamax if v.status != "match"]
    assert sum(v.contested for v in winamax) == 6
    by_id = {v.hand_id: v for v in winamax}
    allin = by_id["winamax:5343878-96-1383820687"]  # AllInHandWithShowdown.txt: QhQc beat KhAh, rake 3€
    assert allin.computed["collected"] == {"2": 4345}
    assert allin.computed["rake"] == 300
    folded = by_id["winamax:7331600-91-1427188257"]  # 650€ bet nobody called: in 'collected 1372€' and 'Total pot'
    assert folded.computed["returned"] == {"1": 65000}
    assert folded.computed["collected"] == {"1": 72200}


def test_winamax_broken_header_is_refused_by_name(tmp_path: Path) -> None:
    sample = ROOMS / "Winamax/CashGame/ValidHandTests/InValidHand.txt"  # 'Winaax Poker - ...'
    [verdict] = replay_file(str(sample), named=True).verdicts
    assert verdict.status == "error"
    assert verdict.kind == "unknown format"
    assert "InValidHand.txt" in verdict.reason
    [inside] = _doctored(tmp_path, ROOMS / "Winamax/CashGame/HandActionTests/BasicHand.txt", "Table: '", "Tabel: '")
    assert inside.status == "error"
    assert inside.line == 2
    assert inside.hand_id.startswith("winamax:")
    assert "expected \"Table: 'NAME' ... Seat #N is the button\"" in inside.reason


def test_winamax_doctored_winner_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "Winamax/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    [verdict] = _doctored(tmp_path, sample, "nico86190 collected", "LEROISALO collected")
    assert verdict.status == "mismatch", verdict.reason
    assert verdict.kind == "pot award", verdict.reason
    assert "recorded seat 4 (LEROISALO) 4345, rules give seat 2 (nico86190) 4345" in verdict.reason


def test_winamax_doctored_amount_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "Winamax/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    text = sample.read_text(encoding="utf-8-sig").replace("collected 43.45€", "collected 44.45€")
    doctored = tmp_path / "doctored.txt"
    doctored.write_text(text.replace("Total pot 43.45€", "Total pot 44.45€"), encoding="utf-8")
    [verdict] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch", verdict.reason
    assert verdict.kind == "rake split", verdict.reason
    assert "recorded seat 2 (nico86190) 4445, rules give seat 2 (nico86190) 4345" in verdict.reason


# -- partypoker -------------------------------------------------------------------------


def test_partypoker_samples_every_hand_settled_and_matching() -> None:
    formats, verdicts = _replay_dir(ROOMS / "PartyPoker")
    assert Counter(formats.values()) == {PARTYPOKER: 42, None: 2}  # two empty files (a byte order mark)
    assert Counter(v.status for v in verdicts) == {"match": 53, "error": 2}
    errors = {v.source.split("CashGame/")[1]: v for v in verdicts if v.status == "error"}
    assert set(errors) == {"ValidHandTests/InValidHand.txt", "Limits/Limit6.txt"}  # both cut off before the award
    assert "InValidHand.txt:21: hand partypoker:13551039167: the hand ends without a 'wins' line" in (
        errors["ValidHandTests/InValidHand.txt"].reason
    )
    by_id = {v.hand_id: v for v in verdicts}
    sides = by_id["partypoker:13549932236"]  # AllInHandWithShowdown.txt: 'side pot 1' is the $1.87 nobody called
    assert sides.computed["collected"] == {"4": 2066}
    assert sides.computed["returned"] == {"4": 187}
    assert sides.computed["rake"] == 100
    hilo = by_id["partypoker:13550918572"]  # OmahaHiLo.txt: the $1 nobody called comes back as 'side pot 1'
    assert hilo.computed["returned"] == {"6": 100}
    assert hilo.computed["collected"] == {"2": 2875, "6": 2875}


def test_partypoker_doctored_winner_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "PartyPoker/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    [verdict] = _doctored(tmp_path, sample, "dr. spaz wins $20.66 USD", "TYRANNOMAN1 wins $20.66 USD")
    assert verdict.status == "mismatch", verdict.reason
    assert verdict.kind == "pot award", verdict.reason


def test_partypoker_doctored_amount_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "PartyPoker/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    [verdict] = _doctored(tmp_path, sample, "wins $20.66 USD", "wins $20.16 USD")
    assert verdict.status == "mismatch", verdict.reason
    assert verdict.kind == "rake split", verdict.reason
    assert "recorded seat 4 (dr. spaz) 2016" in verdict.reason


# -- Full Tilt --------------------------------------------------------------------------


def test_fulltilt_samples_every_hand_settled_and_matching() -> None:
    formats, verdicts = _replay_dir(ROOMS / "FullTilt")
    assert Counter(formats.values()) == {FULLTILT: 43, None: 7}  # fragments without a header, empty files
    assert Counter(v.status for v in verdicts) == {"match": 51, "error": 1}
    [bad] = [v for v in verdicts if v.status == "error"]
    assert bad.hand_id == "fulltilt:33730308005"
    assert bad.line == 2
    assert "a hand needs two seats" in bad.reason
    by_id = {v.hand_id: v for v in verdicts}
    allin = by_id["fulltilt:33730111975"]  # AllInHandWithShowdown.txt: $32 uncalled, $0.50 rake
    assert allin.computed["collected"] == {"1": 61550}
    assert allin.computed["returned"] == {"1": 3200}


def test_fulltilt_run_it_twice_pays_each_run_its_half() -> None:
    [twice] = replay_file(str(ROOMS / "FullTilt/CashGame/RunItTwiceTests/RunItTwice1.txt")).verdicts
    assert twice.status == "match", twice.reason
    assert [[pot["collected"] for pot in run] for run in twice.expected["runs"]] == [[{"6": 31100}], [{"4": 31100}]]
    assert twice.computed["collected"] == {"4": 31100, "6": 31100}


def test_fulltilt_splits_in_nickels_at_a_nickel_table() -> None:
    [hilo] = replay_file(str(ROOMS / "FullTilt/CashGame/GameTypeTests/FixedLimitOmahaHiLo.txt")).verdicts
    assert hilo.status == "match"
    assert hilo.kind == "odd chip in the room's smallest chip"
    assert hilo.expected["collected"] == {"1": 385, "3": 390}  # $7.75 after the rake: $3.90 high, $3.85 low


def test_fulltilt_doctored_winner_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "FullTilt/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    text = sample.read_text(encoding="utf-8-sig")
    text = text.replace("jobetzu wins the pot", "theking881 wins the pot")
    doctored = tmp_path / "doctored.txt"
    doctored.write_text(text.replace("Seat 1: jobetzu (big blind) collected", "Seat 2: theking881 collected"))
    [verdict] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch", verdict.reason
    assert verdict.kind == "pot award"


def test_fulltilt_doctored_amount_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "FullTilt/CashGame/GameTypeTests/FixedLimitOmahaHiLo.txt"
    text = sample.read_text(encoding="utf-8-sig").replace("($3.90)", "($4.00)").replace("($3.85)", "($3.75)")
    doctored = tmp_path / "doctored.txt"
    doctored.write_text(text)
    [verdict] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch", verdict.reason
    assert "recorded seat 1 (SomeStupid) 375, seat 3 (Greszik) 400" in verdict.reason


# -- Winning Poker Network (ACR) ----------------------------------------------------------


def test_wpn_samples_every_hand_settled_and_matching() -> None:
    formats, verdicts = _replay_dir(ROOMS / "WinningPoker")
    assert Counter(formats.values()) == {WPN: 40}
    assert Counter(v.status for v in verdicts) == {"match": 46, "unverifiable": 2, "error": 1}
    unverifiable = {v.source.split("CashGame/")[1] for v in verdicts if v.status == "unverifiable"}
    assert unverifiable == {"PlayerTests/UncalledBet.txt", "ValidHandTests/CancelledHand.txt"}  # nobody to play
    [bad] = [v for v in verdicts if v.status == "error"]  # cut off before the bettor's 'Collects'
    assert "InValidHand.txt:37: hand wpn:261454571: 'Pot' says 4975 but 0 is collected" in bad.reason
    by_id = {v.hand_id: v for v in verdicts}
    omaha = by_id["wpn:261402183"]  # AllInHandWithShowdown.txt: straight beats a pair of kings, rake 1
    assert omaha.computed["collected"] == {"1": 31900}
    drop = by_id["wpn:261679750"]  # BasicHand.txt: $48 in, 'Pot: 45.75. Rake 2': the 25-cent jackpot drop
    assert drop.status == "match"
    assert drop.computed["rake"] == 225
    assert "jackpot drop" in drop.reason


def test_wpn_doctored_winner_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "WinningPoker/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    text = sample.read_text(encoding="utf-8-sig")
    text = text.replace("Bets: 160. Collects: 319. Wins: 159.", "Bets: 160. Collects: 0. Loses: 160.", 1)
    doctored = tmp_path / "doctored.txt"
    doctored.write_text(
        text.replace("Bets: 160. Collects: 0. Loses: 160.\nGame", "Bets: 160. Collects: 319. Wins: 159.\nGame")
    )
    [verdict] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch", verdict.reason
    assert "recorded seat 4 (digbick30) 31900, rules give seat 1 (do not-call) 31900" in verdict.reason


def test_wpn_doctored_amount_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "WinningPoker/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    text = sample.read_text(encoding="utf-8-sig").replace("Pot: 319. Rake 1", "Pot: 318. Rake 1")
    doctored = tmp_path / "doctored.txt"
    doctored.write_text(text.replace("Collects: 319. Wins: 159.", "Collects: 318. Wins: 158."))
    [verdict] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch", verdict.reason
    assert "recorded seat 1 (do not-call) 31800, rules give seat 1 (do not-call) 31900" in verdict.reason


# -- iPoker -----------------------------------------------------------------------------


def test_ipoker_samples_every_hand_settled_and_matching() -> None:
    formats, verdicts = _replay_dir(ROOMS / "IPoker")
    assert Counter(formats.values()) == {IPOKER: 43}
    assert Counter(v.status for v in verdicts) == {"match": 70, "unverifiable": 2, "error": 2}
    errors = {v.source.split("CashGame/")[1]: v.reason for v in verdicts if v.status == "error"}
    assert "a hand needs two <player> seats" in errors["ValidHandTests/InValidHand.txt"]
    # a seat written twice (TrappistBeer, TrapistBeer) whose second copy put in chips no action shows
    assert (
        "the players' 'bet' is not the actions': TrapistBeer 180 (the actions: 0)"
        in errors["Seats/Full Ring (10 Handed).txt"]
    )
    by_id = {v.hand_id: v for v in verdicts}
    allin = by_id["ipoker:5385476176"]  # AllInHandWithShowdown.txt: €17.55 nobody called, in the loser's 'win'
    assert allin.computed["returned"] == {"3": 1755}
    assert allin.computed["collected"] == {"8": 318}


def test_ipoker_broken_xml_names_its_line(tmp_path: Path) -> None:
    sample = ROOMS / "IPoker/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    [verdict] = _doctored(tmp_path, sample, "</round>", "</rond>")
    assert verdict.status == "error"
    assert verdict.line == 32  # the first </round>, written </rond>
    assert "not well-formed XML" in verdict.reason


def test_ipoker_doctored_winner_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "IPoker/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    text = sample.read_text(encoding="utf-8-sig").replace('win="€17.55"', 'win="€20.73"')
    doctored = tmp_path / "doctored.txt"
    doctored.write_text(text.replace('win="€3.18"', 'win="€0"'), encoding="utf-8")
    [verdict] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch", verdict.reason
    assert verdict.kind == "pot award"


def test_ipoker_doctored_amount_is_a_mismatch(tmp_path: Path) -> None:
    sample = ROOMS / "IPoker/CashGame/HandActionTests/AllInHandWithShowdown.txt"
    [verdict] = _doctored(tmp_path, sample, 'win="€3.18"', 'win="€3.08"')  # the winner's win, less 10 cents ...
    assert verdict.status == "match"  # ... is only more rake: iPoker writes none, so the rake is what is left
    text = sample.read_text(encoding="utf-8-sig").replace('win="€17.55"', 'win="€17.65"')  # the loser's, 10 more
    doctored = tmp_path / "doctored.txt"
    doctored.write_text(text.replace('win="€3.18"', 'win="€3.08"'), encoding="utf-8")
    [verdict] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch", verdict.reason
    assert "recorded seat 3 (Amalfitano1) 10, seat 8 (Taras2107) 308" in verdict.reason


# -- Open Hand History (own fixture, written from the public specification) -----------------

OHH_FIXTURE = FIXTURES / "replay" / "ohh" / "two_hands.ohh"


def test_ohh_fixture_settles_pot_by_pot_and_checks_the_bounty() -> None:
    result = replay_file(str(OHH_FIXTURE))
    assert result.format == OHH
    cash, knockout = result.verdicts
    assert cash.status == "match", cash.reason
    assert [pot["collected"] for pot in cash.computed["pots"]] == [{"2": 8550}, {"1": 3800}]
    assert [pot["rake"] for pot in cash.computed["pots"]] == [450, 200]
    assert knockout.status == "match", knockout.reason
    assert knockout.computed["bounty_awards"][0]["eliminated"] == "Bob"
    assert knockout.computed["bounty_awards"][0]["winners"][0]["player"] == "Ann"


def test_ohh_doctored_winner_is_a_mismatch(tmp_path: Path) -> None:
    [verdict, _] = _doctored(
        tmp_path, OHH_FIXTURE, '"player_id": 1, "win_amount": 85.5', '"player_id": 2, "win_amount": 85.5'
    )
    assert verdict.status == "mismatch", verdict.reason
    assert "main pot: recorded seat 3 (Cid) 8550, rules give seat 2 (Bob) 8550" in verdict.reason


def test_ohh_doctored_amount_is_a_mismatch(tmp_path: Path) -> None:
    text = OHH_FIXTURE.read_text(encoding="utf-8").replace('"rake": 4.5', '"rake": 3.5')
    doctored = tmp_path / "doctored.ohh"
    doctored.write_text(text.replace('"win_amount": 85.5', '"win_amount": 86.5'), encoding="utf-8")
    verdict = replay_file(str(doctored)).verdicts[0]
    assert verdict.status == "mismatch", verdict.reason
    assert verdict.kind == "rake split"


def test_ohh_bounty_to_the_loser_is_a_mismatch(tmp_path: Path) -> None:
    [_, verdict] = _doctored(
        tmp_path, OHH_FIXTURE, '{"player_id": 0, "bounty_won": 5, "defeated_player_id": 1}',
        '{"player_id": 1, "bounty_won": 5, "defeated_player_id": 0}',
    )  # fmt: skip
    assert verdict.status == "mismatch"
    assert verdict.kind == "bounty award"


def test_ohh_broken_json_names_its_line(tmp_path: Path) -> None:
    verdicts = _doctored(
        tmp_path, OHH_FIXTURE, '"street": "Turn", "cards": ["2s"],', '"street": "Turn" "cards": ["2s"],'
    )
    assert [v.status for v in verdicts] == ["error"]
    assert verdicts[0].line == 27
    assert "not JSON" in verdicts[0].reason


# -- GGPoker (own fixture, written from the format's public descriptions) -------------------

GG_FIXTURE = FIXTURES / "replay" / "ggpoker" / "three_hands.txt"


def test_ggpoker_fixture_jackpot_run_twice_and_ev_cashout() -> None:
    result = replay_file(str(GG_FIXTURE))
    assert result.format == GGPOKER
    jackpot, twice, cashout = result.verdicts  # newest first, as GGPoker exports
    assert jackpot.status == "match"
    assert jackpot.computed["rake"] == 15  # the $0.10 rake and the $0.05 jackpot
    assert jackpot.computed["returned"] == {"2": 12}
    assert twice.status == "match", twice.reason
    assert [[pot["collected"] for pot in run] for run in twice.expected["runs"]] == [[{"1": 99750}], [{"2": 99750}]]
    assert cashout.status == "unverifiable"
    assert "EV Cashout" in cashout.reason


def test_ggpoker_doctored_winner_is_a_mismatch(tmp_path: Path) -> None:
    [verdict, _, _] = _doctored(tmp_path, GG_FIXTURE, "Hero collected $9.90", "4f5a6b7c collected $9.90")
    assert verdict.status == "mismatch"
    assert "main pot: recorded seat 1 (4f5a6b7c) 990, rules give seat 2 (Hero) 990" in verdict.reason


def test_ggpoker_doctored_amount_is_a_mismatch(tmp_path: Path) -> None:
    text = GG_FIXTURE.read_text(encoding="utf-8").replace("Hero collected $9.90", "Hero collected $9.95")
    doctored = tmp_path / "doctored.txt"
    doctored.write_text(text.replace("Rake $0.10 | Jackpot $0.05", "Rake $0.10 | Jackpot $0"), encoding="utf-8")
    [verdict, _, _] = replay_file(str(doctored)).verdicts
    assert verdict.status == "match"  # a consistent forgery of the jackpot cannot be told from the pot ...
    doctored.write_text(text, encoding="utf-8")
    [verdict, _, _] = replay_file(str(doctored)).verdicts
    assert verdict.status == "error"  # ... an amount changed alone is chips that do not add up
    assert "collected plus" in verdict.reason
    twice = GG_FIXTURE.read_text(encoding="utf-8").replace("Hero collected $997.50", "Hero collected $998.50")
    doctored.write_text(twice.replace("9e8d7c6b collected $997.50", "9e8d7c6b collected $996.50"), encoding="utf-8")
    [_, verdict, _] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch"
    assert verdict.kind == "rake split"


# -- whole tournaments ------------------------------------------------------------------------

TOURNAMENT = FIXTURES / "replay" / "tournament"


def _audit(tmp_path: Path, hands: str | None = None, summary: str | None = None) -> list[dict[str, Any]]:
    for name, text in (("hands.txt", hands), ("summary.txt", summary)):
        (tmp_path / name).write_text(text if text is not None else (TOURNAMENT / name).read_text(encoding="utf-8"))
    report = tmp_path / "tournaments.jsonl"
    main(["replay", "--tournaments", str(tmp_path / "hands.txt"), str(tmp_path / "summary.txt"),
          "--tournament-report", str(report)])  # fmt: skip
    return [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]


def test_whole_tournament_reproduces_every_place_prize_and_bounty(tmp_path: Path) -> None:
    [audit] = _audit(tmp_path)
    assert audit["room"] == "pokerstars"
    assert audit["tournament_id"] == "80000001"
    assert audit["hands"] == 3
    assert audit["status"] == "match", audit["differences"]
    assert audit["places"] == [
        {"player": "Ada", "place": 1, "prize": 1040, "bounty": 400},  # three knockouts and her own bounty
        {"player": "Ben", "place": 2, "prize": 560, "bounty": 0},  # busted with Cal, from the bigger stack
        {"player": "Cal", "place": 3, "prize": 0, "bounty": 0},
        {"player": "Dee", "place": 4, "prize": 0, "bounty": 0},
    ]


def test_whole_tournament_exit_status_and_summary_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hands = (TOURNAMENT / "hands.txt").read_text(encoding="utf-8")
    (tmp_path / "hands.txt").write_text(
        hands.replace(
            "Seat 2: Ben (1490 in chips)\nSeat 3: Cal (1440", "Seat 2: Ben (1500 in chips)\nSeat 3: Cal (1440"
        )
    )
    (tmp_path / "summary.txt").write_text((TOURNAMENT / "summary.txt").read_text(encoding="utf-8"))
    assert main(["replay", "--tournaments", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "pokerstars 80000001: mismatch" in out
    assert "chips: hand pokerstars:300000000002: Ben starts hand" in out


def test_whole_tournament_chip_added_between_hands_is_a_difference(tmp_path: Path) -> None:
    hands = (TOURNAMENT / "hands.txt").read_text(encoding="utf-8")
    doctored = hands.replace(
        "Seat 2: Ben (1490 in chips)\nSeat 3: Cal (1440", "Seat 2: Ben (1500 in chips)\nSeat 3: Cal (1440"
    )
    [audit] = _audit(tmp_path, hands=doctored)
    assert audit["status"] == "mismatch"
    chips = [(d["hand_id"], d["detail"]) for d in audit["differences"] if d["kind"] == "chips"]
    assert chips == [
        ("pokerstars:300000000002", "Ben starts hand pokerstars:300000000002 with 1500 chips but ended hand "
         "pokerstars:300000000001 at this table with 1490"),
        ("pokerstars:300000000003", "Ben starts hand pokerstars:300000000003 with 1490 chips but ended hand "
         "pokerstars:300000000002 at this table with 1500"),
    ]  # the chip appears before hand 2 and vanishes before hand 3 # fmt: skip


def _with_add_on(line: str, *, before_seats: bool = False) -> str:
    """The tournament's hands with Ada 100 chips richer from hand 2 on, and ``line`` (a purchase) where written."""
    hands = (TOURNAMENT / "hands.txt").read_text(encoding="utf-8")
    richer = hands.replace("Seat 1: Ada (1570 in chips)", "Seat 1: Ada (1670 in chips)")
    richer = richer.replace("Seat 1: Ada (3080 in chips)", "Seat 1: Ada (3180 in chips)")
    if before_seats:  # above hand 2's seats
        return richer.replace("9-max Seat #2 is the button\n", f"9-max Seat #2 is the button\n{line}" if line else "")
    return richer.replace("Ada collected 130 from pot\n", f"Ada collected 130 from pot\n{line}")  # after hand 1


def test_whole_tournament_rebuy_or_add_on_between_hands_is_no_difference(tmp_path: Path) -> None:
    for hands in (
        _with_add_on("Ada takes the add-on and receives 100 chips for $1.00\n"),
        _with_add_on("Ada re-buys and receives 100 chips for $1.00\n", before_seats=True),
    ):
        [audit] = _audit(tmp_path, hands=hands)
        assert audit["status"] == "match", audit["differences"]  # the ledger took the chips message: no refusal
        assert audit["places"][0] == {"player": "Ada", "place": 1, "prize": 1040, "bounty": 400}
        assert "places, prizes and bounties through the tournament ledger" in audit["checked"]
    [record] = [r for r in read_file(str(tmp_path / "hands.txt"))[1] if isinstance(r, HandRecord) and r.purchases]
    assert record.purchases == (Purchase("Ada", "rebuy", 100, "$1.00", 33, True),)


def test_whole_tournament_chip_appearing_without_a_rebuy_line_is_still_a_difference(tmp_path: Path) -> None:
    [audit] = _audit(tmp_path, hands=_with_add_on(""))
    assert audit["status"] == "mismatch"
    chips = [(d["hand_id"], d["detail"]) for d in audit["differences"] if d["kind"] == "chips"]
    assert chips == [
        ("pokerstars:300000000002", "Ada starts hand pokerstars:300000000002 with 1670 chips but ended hand "
         "pokerstars:300000000001 at this table with 1570"),
    ]  # fmt: skip
    [too_few] = _audit(tmp_path, hands=_with_add_on("Ada re-buys and receives 50 chips for $1.00\n"))
    assert ("pokerstars:300000000002", "Ada starts hand pokerstars:300000000002 with 1670 chips but ended hand "
            "pokerstars:300000000001 at this table with 1620") in [
        (d["hand_id"], d["detail"]) for d in too_few["differences"] if d["kind"] == "chips"
    ]  # fmt: skip


def test_whole_tournament_rebuy_after_a_bust_keeps_the_player_in_play(tmp_path: Path) -> None:
    # Dee loses every chip in hand 2 and re-buys: not out
    # (tests/histories/test_replay_reentries.py follows one who plays on)
    hands = (
        (TOURNAMENT / "hands.txt")
        .read_text(encoding="utf-8")
        .replace("Dee finished the tournament in 4th place\n", "Dee re-buys and receives 1500 chips for $5.00\n")
    )
    [audit] = _audit(tmp_path, hands=hands)
    assert audit["status"] == "mismatch"
    details = [d["detail"] for d in audit["differences"]]
    # still in play, with four entries in play at hand 3: its busts are 3rd and 4th, not the 2nd and 3rd printed
    assert "line 10: the summary places Dee 4; the hands leave them still playing" in details
    assert "the history places Ben 2; the rules give 3" in details
    assert "Dee" not in [p["player"] for p in audit["places"]]


def test_unreadable_purchase_line_names_file_line_and_hand(tmp_path: Path) -> None:
    hands = _with_add_on("Ada takes the add-on and receives lots of chips for $1.00\n")
    (tmp_path / "hands.txt").write_text(hands, encoding="utf-8")
    [first, *_] = replay_file(str(tmp_path / "hands.txt"), named=True).verdicts
    assert (first.hand_id, first.status, first.line) == ("pokerstars:300000000001", "error", 20)
    assert "expected 'NAME re-buys (or takes the add-on) and receives N chips for COST'" in first.reason
    stranger = _with_add_on("Eve re-buys and receives 100 chips for $1.00\n")
    (tmp_path / "hands.txt").write_text(stranger, encoding="utf-8")
    [first, *_] = replay_file(str(tmp_path / "hands.txt"), named=True).verdicts
    assert (first.status, first.line) == ("error", 20)
    assert "'Eve' has no seat in this hand" in first.reason


def test_whole_tournament_swapped_place_in_the_summary_is_a_difference(tmp_path: Path) -> None:
    summary = (TOURNAMENT / "summary.txt").read_text(encoding="utf-8")
    doctored = summary.replace("3: Cal (France),", "3: Dee (Spain),X").replace("4: Dee (Spain),", "4: Cal (France),")
    [audit] = _audit(tmp_path, summary=doctored.replace("X", ""))
    assert audit["status"] == "mismatch"
    kinds = [(d["kind"], d["detail"]) for d in audit["differences"]]
    assert ("summary place", "line 9: the summary places Dee 3; the hands give 4") in kinds
    assert ("summary place", "line 10: the summary places Cal 4; the hands give 3") in kinds


def test_whole_tournament_prize_off_the_payout_table_is_a_difference(tmp_path: Path) -> None:
    summary = (TOURNAMENT / "summary.txt").read_text(encoding="utf-8").replace("$5.60 (35%)", "$5.00 (35%)")
    [audit] = _audit(tmp_path, summary=summary)
    kinds = {d["kind"] for d in audit["differences"]}
    assert {"payout table", "prize pool", "prize"} <= kinds


def test_whole_tournament_bounty_paid_to_a_player_who_folded_is_a_difference(tmp_path: Path) -> None:
    hands = (TOURNAMENT / "hands.txt").read_text(encoding="utf-8")
    doctored = hands.replace(
        "Ada wins the $1.00 bounty for eliminating Dee", "Ben wins the $1.00 bounty for eliminating Dee"
    )
    [audit] = _audit(tmp_path, hands=doctored)
    assert audit["status"] == "mismatch"
    [hand] = [d for d in audit["differences"] if d["kind"] == "hand"]
    assert hand["hand_id"] == "pokerstars:300000000002"
    assert "bounty for eliminating Dee" in hand["detail"]
    assert any(
        d["kind"] == "bounty" and "Ben's bounty lines add up to 100" in d["detail"] for d in audit["differences"]
    )


def test_player_side_history_of_a_bigger_field_is_incomplete(tmp_path: Path) -> None:
    summary = (TOURNAMENT / "summary.txt").read_text(encoding="utf-8").replace("4 players", "180 players")
    # (a $16 pool for 180 entries is a $0.08 buy-in: the $4.00 one would be a field the pool does not hold)
    summary = summary.replace("Buy-In: $4.00/$1.00/$0.50 USD", "Buy-In: $0.08/$0.01 USD")
    [audit] = _audit(tmp_path, summary=summary)
    assert audit["status"] == "incomplete"
    assert audit["differences"] == []
    assert [p["place"] for p in audit["places"]] == [4, 3, 2]  # as printed, checked to only get better


def test_open_tournament_summary_against_open_hand_history_hands(tmp_path: Path) -> None:
    hands = (FIXTURES / "replay" / "ohh" / "two_hands.ohh").read_text(encoding="utf-8")
    summary = OHH_FIXTURE.with_name("knockout_777.ots").read_text(encoding="utf-8")
    (tmp_path / "hands.ohh").write_text(hands, encoding="utf-8")
    (tmp_path / "summary.ots").write_text(summary, encoding="utf-8")
    report = tmp_path / "tournaments.jsonl"
    assert main(["replay", "--tournaments", str(tmp_path), "--tournament-report", str(report)]) == 0
    [audit] = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert (audit["room"], audit["tournament_id"], audit["status"]) == ("ohh", "777", "match")
    assert audit["places"] == [
        {"player": "Ann", "place": 1, "prize": 2000, "bounty": 1000},  # Bob's $5 bounty and her own
        {"player": "Bob", "place": 2, "prize": 0, "bounty": 0},
    ]
    swapped = summary.replace('"Ann", "finish_position": 1', '"Ann", "finish_position": 2')
    (tmp_path / "summary.ots").write_text(swapped.replace('"Bob", "finish_position": 2', '"Bob", "finish_position": 1'))
    assert main(["replay", "--tournaments", str(tmp_path), "--tournament-report", str(report)]) == 1
    [audit] = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert {(d["kind"], d["detail"]) for d in audit["differences"]} >= {
        ("summary place", "line 1: the summary places Ann 2; the hands give 1"),
        ("summary place", "line 1: the summary places Bob 1; the hands give 2"),
    }


# -- WPN (ACR), the current client (own fixture, written from the format's public descriptions) ---

ACR_FIXTURE = FIXTURES / "replay" / "acr" / "tournament.txt"


def test_acr_fixture_reads_running_pots_and_did_not_show_and_won() -> None:
    result = replay_file(str(ACR_FIXTURE))
    assert result.format == ACR
    folded, allin = result.verdicts
    assert folded.status == "match", folded.reason
    assert folded.computed["collected"] == {"1": 145}  # 'did not show and won 145.00': the summary's award
    assert folded.computed["returned"] == {"1": 80}
    assert allin.status == "match", allin.reason
    assert [pot["collected"] for pot in allin.computed["pots"]] == [{"2": 4305}, {"2": 100}]


def test_acr_doctored_winner_and_amount_are_mismatches(tmp_path: Path) -> None:
    text = ACR_FIXTURE.read_text(encoding="utf-8").replace("Bob collected 4305.00", "Cid collected 4305.00")
    text = text.replace("[Ac Ad] and won 4405.00", "[Ac Ad] and won 100.00").replace(
        "[Jc Jd] and lost", "[Jc Jd] and won 4305.00"
    )
    doctored = tmp_path / "winner.txt"
    doctored.write_text(text, encoding="utf-8")
    [_, verdict] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch"
    assert verdict.kind == "pot award"
    text = ACR_FIXTURE.read_text(encoding="utf-8").replace("Bob collected 100.00", "Bob collected 200.00")
    doctored = tmp_path / "amount.txt"
    doctored.write_text(text.replace("Bob collected 4305.00", "Bob collected 4205.00"), encoding="utf-8")
    [_, verdict] = replay_file(str(doctored)).verdicts
    assert verdict.status == "mismatch"
    assert "main pot: recorded seat 2 (Bob) 4205, rules give seat 2 (Bob) 4305" in verdict.reason


def test_acr_tournament_without_its_end_is_incomplete_with_the_bust_placed(tmp_path: Path) -> None:
    report = tmp_path / "tournaments.jsonl"
    assert main(["replay", "--tournaments", str(ACR_FIXTURE), "--tournament-report", str(report)]) == 0
    [audit] = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert (audit["room"], audit["tournament_id"], audit["status"]) == ("acr", "5550001", "incomplete")
    assert audit["places"] == [{"player": "Cid", "place": 3, "prize": None, "bounty": None}]


def test_fulltilt_tournament_places_from_the_stacks_where_it_prints_none(tmp_path: Path) -> None:
    sample = FIXTURES / "replay" / "fulltilt" / "sit_and_go.txt"
    report = tmp_path / "tournaments.jsonl"
    assert main(["replay", "--tournaments", str(sample), "--tournament-report", str(report)]) == 0
    [audit] = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert (audit["room"], audit["tournament_id"], audit["status"]) == ("fulltilt", "600000001", "match")
    # Bob and Cid bust in one hand: Bob started it with 1,000 chips, Cid with 500 (no room line says so)
    assert [(p["player"], p["place"]) for p in audit["places"]] == [("Ann", 1), ("Bob", 2), ("Cid", 3)]
    assert all(p["prize"] is None for p in audit["places"])  # no summary, no prize printed: unknown


FULLTILT_SNG = FIXTURES / "replay" / "fulltilt" / "sit_and_go.txt"


def _fulltilt_audit(tmp_path: Path, summary: str) -> list[dict[str, Any]]:
    (tmp_path / "summary.txt").write_text(summary, encoding="utf-8")
    report = tmp_path / "tournaments.jsonl"
    main(["replay", "--tournaments", str(FULLTILT_SNG), str(tmp_path / "summary.txt"),
          "--tournament-report", str(report)])  # fmt: skip
    return [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]


def _fulltilt_summary() -> str:
    return FULLTILT_SNG.with_name("sit_and_go_summary.txt").read_text(encoding="utf-8")


def test_fulltilt_summary_places_and_prizes_match_the_hands(tmp_path: Path) -> None:
    summary = read_summary(_fulltilt_summary(), "summary.txt")
    assert isinstance(summary, Summary)
    assert (summary.room, summary.tournament_id, summary.players, summary.pool) == ("fulltilt", "600000001", 3, 1500)
    assert [(r.place, r.player, r.prize, r.line) for r in summary.rows] == [
        (1, "Ann", 1050, 8), (2, "Bob", 450, 9), (3, "Cid", None, 10)
    ]  # fmt: skip
    assert [(f.player, f.place, f.line) for f in summary.finishes] == [("Ann", 1, 11)]
    [audit] = _fulltilt_audit(tmp_path, _fulltilt_summary())
    assert (audit["room"], audit["tournament_id"], audit["status"]) == ("fulltilt", "600000001", "match")
    assert audit["places"] == [
        {"player": "Ann", "place": 1, "prize": 1050, "bounty": None},
        {"player": "Bob", "place": 2, "prize": 450, "bounty": None},  # placed from the stacks: 1,000 against 500
        {"player": "Cid", "place": 3, "prize": 0, "bounty": None},
    ]
    assert "the summary's payout table and prize pool" in audit["checked"]


def test_fulltilt_summary_swapped_place_is_a_difference(tmp_path: Path) -> None:
    swapped = _fulltilt_summary().replace("2: Bob, $4.50\n3: Cid", "2: Cid, $4.50\n3: Bob")
    [audit] = _fulltilt_audit(tmp_path, swapped)
    assert audit["status"] == "mismatch"
    details = {(d["kind"], d["detail"]) for d in audit["differences"]}
    assert ("summary place", "line 9: the summary places Cid 2; the hands give 3") in details
    assert ("summary place", "line 10: the summary places Bob 3; the hands give 2") in details
    assert ("summary prize", "line 9: the summary pays Cid 450; the rules give 0") in details


def test_fulltilt_summary_prize_off_the_table_is_a_difference(tmp_path: Path) -> None:
    [short] = _fulltilt_audit(tmp_path, _fulltilt_summary().replace("2: Bob, $4.50", "2: Bob, $4.00"))
    assert [(d["kind"], d["detail"]) for d in short["differences"]] == [
        ("prize pool", "the summary pays 1450 in all; its prize pool is 1500")
    ]
    upside_down = _fulltilt_summary().replace("$10.50", "$X").replace("$4.50", "$10.50").replace("$X", "$4.50")
    [audit] = _fulltilt_audit(tmp_path, upside_down)
    details = {(d["kind"], d["detail"]) for d in audit["differences"]}
    assert ("payout table", "the prizes by place [450, 1050] pay a lower place more") in details
    assert ("summary prize", "line 8: the summary pays Ann 450; the rules give 1050") in details


def test_fulltilt_summary_finished_in_line_tickets_and_still_playing(tmp_path: Path) -> None:
    [wrong] = _fulltilt_audit(tmp_path, _fulltilt_summary().replace("Ann finished in 1st", "Ann finished in 2nd"))
    assert [(d["kind"], d["detail"]) for d in wrong["differences"]] == [
        ("summary place", "line 11: the summary says Ann finished 2; it gives them row 1 at line 8")
    ]
    only_finish = "\n".join(line for line in _fulltilt_summary().splitlines() if line[:2] not in ("1:", "2:", "3:"))
    [alone] = _fulltilt_audit(tmp_path, only_finish)  # an export with only its player's line: place checked, no prize
    assert alone["status"] == "match", alone["differences"]
    ticket = read_summary(_fulltilt_summary().replace("1: Ann, $10.50", "1: Ann, Step 2 Ticket"), "s.txt")
    assert isinstance(ticket, Summary)
    assert (ticket.rows[0].prize, ticket.rows[0].award) == (None, "Step 2 Ticket")
    playing = read_summary(_fulltilt_summary().replace("3: Cid", "Still Playing - Cid"), "s.txt")
    assert isinstance(playing, Summary)
    assert (playing.rows[2].player, playing.rows[2].playing) == ("Cid", True)
    [audit] = _fulltilt_audit(tmp_path, _fulltilt_summary().replace("3: Cid", "Still Playing - Cid"))
    assert ("summary place", "line 10: the summary has Cid still playing; the hands finish them 3") in {
        (d["kind"], d["detail"]) for d in audit["differences"]
    }


def test_fulltilt_summary_unreadable_names_file_and_line(tmp_path: Path) -> None:
    bad = read_summary(_fulltilt_summary().replace("2: Bob, $4.50", "2: Bob, $4.5.0"), "s.txt")
    assert isinstance(bad, ReplayError)
    assert (bad.source, bad.line) == ("s.txt", 9)
    assert "'$4.5.0' is not an amount" in str(bad)
    pool = read_summary(_fulltilt_summary().replace("Total Prize Pool: $15", "Total Prize Pool: lots"), "s.txt")
    assert isinstance(pool, ReplayError)
    assert pool.line == 5
    unreadable, hands = _fulltilt_audit(tmp_path, _fulltilt_summary().replace("2: Bob, $4.50", "2: Bob, $4.5.0"))
    assert (unreadable["room"], unreadable["tournament_id"], unreadable["status"]) == ("fulltilt", "?", "mismatch")
    [difference] = unreadable["differences"]
    assert difference["kind"] == "summary unreadable"
    assert difference["detail"] == f"{tmp_path / 'summary.txt'}:9: '$4.5.0' is not an amount (row '2: Bob, $4.5.0')"
    assert (hands["tournament_id"], hands["status"]) == ("600000001", "match")  # its hands audited without it


def test_the_rooms_game_names_and_a_stud_hand_refused_by_name(tmp_path: Path) -> None:
    assert room_game("Hold'em No Limit") is HOLDEM
    assert room_game("PLO-5".replace("PLO-5", "5 Card Omaha")) is OMAHA_5
    assert room_game("Pot Limit OmahaHL") is OMAHA_HILO
    assert room_game("5Card Omaha H/L(Pot Limit)") is OMAHA_5_HILO
    assert room_game("Short Deck No Limit") is SHORT_DECK
    assert room_game("6 Card Omaha Hi/Lo") is None  # the contract settles Omaha Hi/Lo with 4 or 5 own cards
    sample = ROOMS / "Winamax/CashGame/HandActionTests/BasicHand.txt"
    [verdict] = _doctored(tmp_path, sample, "Holdem no limit", "7 Card Stud limit")
    assert verdict.status == "error"
    assert verdict.kind == "unsupported"
    assert "7 Card Stud from Winamax: stud and draw games of this room are not read yet" in verdict.reason


def test_summary_rows_ties_re_entries_and_still_playing_are_read_and_compared(tmp_path: Path) -> None:
    text = (TOURNAMENT / "summary.txt").read_text(encoding="utf-8")
    edited = text.replace(
        "  4: Dee (Spain),", "  4: Dee [2] (Spain),\n  3: Eve (Italy), $0.00 (0%)\n  5: Fay (Peru), still playing"
    )
    summary = read_summary(edited, "summary.txt")
    assert isinstance(summary, Summary)
    assert (summary.tournament_id, summary.players, summary.pool) == ("80000001", 4, 1600)
    rows = {(r.player, r.entry): r for r in summary.rows}
    assert rows["Dee", 2].place == 4
    assert (rows["Eve", 1].place, rows["Eve", 1].prize) == (3, 0)  # a second row at place 3: a tie
    assert rows["Fay", 1].playing
    assert rows["Ada", 1].prize == 1040
    assert rows["Ada", 1].percent == "65"
    [audit] = _audit(tmp_path, summary=edited)
    details = {d["detail"] for d in audit["differences"]}
    assert "line 10: the summary places Dee [2] 4; the hands leave them never finishing" in details
    assert "line 11: the summary places Eve 3; the hands leave them never finishing" in details
    bad = read_summary(text.replace("  2: Ben (Germany), $5.60 (35%)", "  2: Ben (Germany), five dollars"), "s.txt")
    assert isinstance(bad, ReplayError)
    assert bad.line == 8


def test_fulltilt_on_the_pokerstars_platform_is_read_as_pokerstars_text(tmp_path: Path) -> None:
    sample = FIXTURES / "replay" / "fulltilt" / "pokerstars_platform.txt"
    result = replay_file(str(sample))
    assert result.format == POKERSTARS
    [verdict] = result.verdicts
    assert verdict.hand_id == "fulltilt:300100000001"
    assert verdict.status == "match", verdict.reason
    assert verdict.computed["collected"] == {"1": 142}
    text = sample.read_text(encoding="utf-8").replace("Ann collected $1.42", "Cid collected $1.42")
    text = text.replace("[Ah Kh] and won ($1.42)", "[Ah Kh] and lost").replace(
        "[Qc Qd] and lost", "[Qc Qd] and won ($1.42)"
    )
    doctored = tmp_path / "swapped.txt"
    doctored.write_text(text, encoding="utf-8")
    [swapped] = replay_file(str(doctored)).verdicts
    assert swapped.status == "mismatch"
    assert swapped.kind == "pot award"
