"""Replay benchmark: our PHH reader and settlement vs pokerkit's PHH loader and state machine, in one run.

Per hand, from the file's text already in memory (no disk I/O on either side):

* ``showdown, read``: ``read_phh`` -- parse, play the actions, build and
  validate the ShowdownEvent;
* ``showdown, replay``: the above plus ``judge`` -- settle with the worker's
  settlement and compare with the recorded finishing stacks (what
  ``showdown replay`` does per hand);
* ``pokerkit``: ``HandHistory.loads`` and iterating the hand's states to the
  end (its state machine computes the payoffs), on a seeded random subset
  (pokerkit is slow), extrapolated per hand.

Target: ours at least 10x faster per hand (issue 27; an earlier issue asked 20x). Run:
``python -m bench.replay``.

Per game, the same three steps on each game's PHH fixture (a three-handed
hand played to a showdown), repeated: ours against pokerkit's replay of the
same text, and ours against ours on hold'em (the fixed-limit hold'em
fixture), so that Omaha and stud can be held to 2x of hold'em per hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from pokerkit import HandHistory

from bench import Figure, Section
from bench.timing import fmt_time, race
from showdown_service.histories import HandRecord, judge, read_phh
from showdown_service.histories.run import READERS, decode, detect, find_files

PLURIBUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "phh" / "pluribus"
GAMES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "replay" / "phh" / "games"
POKERKIT_SAMPLE = 300
GAME_FIXTURES = (
    ("hold'em (FT)", "fixed_limit.phh"),
    ("Omaha (PO)", "omaha.phh"),
    ("Omaha Hi/Lo (FO/8)", "omaha_hilo.phh"),
    ("short deck (NS)", "short_deck.phh"),
    ("7-card stud (F7S)", "stud.phh"),
    ("stud Hi/Lo (F7S/8)", "stud_hilo.phh"),
    ("razz (FR)", "razz.phh"),
    ("2-7 triple draw (F2L3D)", "triple_draw.phh"),
    ("2-7 single draw (N2L1D)", "single_draw.phh"),
    ("badugi (FB)", "badugi.phh"),
    ("five-card draw (N5CD)", "five_card_draw.phh"),
    ("hold'em run 3 times (NT)", "run_three_times.phh"),
)
"""(row, fixture): each game's PHH fixture; hold'em first, the reference of the last column."""
OURS_REPEAT, POKERKIT_REPEAT = 300, 30
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "replay"
ROOMS: Final = (
    ("PokerStars", "pokerstars", SHARED / "pokerstars"),
    ("GGPoker (own fixture)", "ggpoker", FIXTURES / "ggpoker"),
    ("888poker", "888poker", SHARED / "rooms" / "Pacific"),
    ("partypoker", "partypoker", SHARED / "rooms" / "PartyPoker"),
    ("Winamax", "winamax", SHARED / "rooms" / "Winamax"),
    ("WPN (ACR)", "wpn", SHARED / "rooms" / "WinningPoker"),
    ("WPN, current client (own fixture)", "acr", FIXTURES / "acr"),
    ("iPoker (XML)", "ipoker", SHARED / "rooms" / "IPoker"),
    ("Full Tilt", "fulltilt", SHARED / "rooms" / "FullTilt"),
    ("Open Hand History (own fixture)", "ohh", FIXTURES / "ohh"),
)
"""(row, format, folder): each room's samples, read in place; PokerStars first, the reference of the ratio."""
ROOM_ROUNDS, ROOM_TARGET = 7, 1.5
TARGET = 10.0
"""The Pluribus replay against pokerkit's reader, per hand (issue 27)."""


def report(seed: int = 2026) -> str:
    """Run the replay benchmark and render a markdown report."""
    return section(seed).markdown


def section(seed: int = 2026) -> Section:
    """Run the replay benchmark: markdown, and the ratio for the summary chart."""
    files = sorted(PLURIBUS.rglob("*.phh"))
    texts = [(str(path), path.read_text(encoding="utf-8")) for path in files]
    sample = random.Random(seed).sample(texts, min(POKERKIT_SAMPLE, len(texts)))

    def ours_read() -> None:
        for source, text in texts:
            for _ in read_phh(text, source):
                pass

    def ours_replay() -> None:
        for source, text in texts:
            for hand in read_phh(text, source):
                assert isinstance(hand, HandRecord)
                judge(hand)

    def theirs() -> None:
        for _, text in sample:
            for _ in HandHistory.loads(text):
                pass

    best = race(
        {
            "showdown, read": (ours_read, len(texts)),
            "showdown, replay": (ours_replay, len(texts)),
            "pokerkit": (theirs, len(sample)),
        },
        rounds=3,
    )
    pokerkit = best["pokerkit"]
    lines = [
        "## Replay",
        "",
        f"{len(texts)} Pluribus hands (PHH); pokerkit on a seeded random {len(sample)} of them, per hand. "
        "Best of 3 interleaved rounds.",
        "",
        "| how | per hand | hands/s | pokerkit's time / ours |",
        "|---|---:|---:|---:|",
    ]
    for name, seconds in best.items():
        lines.append(f"| {name} | {fmt_time(seconds)} | {1 / seconds:,.0f} | {pokerkit / seconds:.1f}x |")
    replay = best["showdown, replay"]
    lines += [
        "",
        f"Target: showdown's replay at least {TARGET:.0f}x faster than pokerkit per hand: {pokerkit / replay:.1f}x -> "
        f"{'met' if pokerkit >= TARGET * replay else 'MISSED'}",
    ]
    game_lines, game_figures = games_table()
    room_lines, room_figures = rooms_table()
    figures = [Figure("replay vs pokerkit (per hand)", pokerkit / replay, TARGET), *game_figures, *room_figures]
    return Section("\n".join(lines + game_lines + room_lines), figures)


def rooms_table() -> tuple[list[str], list[Figure]]:
    """Per room: read + settle + compare per hand over the room's samples, against the PokerStars reader's."""
    contenders: dict[str, tuple[Callable[[], object], int]] = {}
    counts: dict[str, int] = {}
    for row, kind, folder in ROOMS:
        files, _ = find_files([str(folder)])
        texts = [(f, decode(Path(f).read_bytes())[0]) for f in files]
        texts = [(f, t) for f, t in texts if detect(t) == kind]
        reader = READERS[kind]
        counts[row] = sum(isinstance(h, HandRecord) for f, t in texts for h in reader(t, f))
        contenders[row] = (_room(reader, texts), counts[row])
    best = race(contenders, rounds=ROOM_ROUNDS)
    stars = best[ROOMS[0][0]]
    lines = [
        "",
        "### Per room",
        "",
        "Each room's reader on its samples (../shared/data/rooms, read in place; GGPoker and Open Hand History: the "
        f"fixtures written for them), read + settle + compare per hand; best of {ROOM_ROUNDS} interleaved rounds. "
        f"Target: each within {ROOM_TARGET}x of the PokerStars reader per hand (the samples differ: the rooms' "
        "hands are their test suites', PokerStars' the side pots and all-ins of ../shared/data/pokerstars).",
        "",
        "| room | hands | per hand | / PokerStars's | target |",
        "|---|---:|---:|---:|---|",
    ]
    figures: list[Figure] = []
    for row, _, _ in ROOMS:
        ratio = best[row] / stars
        verdict = "reference" if row == ROOMS[0][0] else ("met" if ratio <= ROOM_TARGET else "MISSED")
        lines.append(f"| {row} | {counts[row]} | {fmt_time(best[row])} | {ratio:.2f}x | {verdict} |")
        if row != ROOMS[0][0]:
            figures.append(
                Figure(f"PokerStars replay time / {row.split(' (')[0]}'s", stars / best[row], 1 / ROOM_TARGET)
            )
    return lines, figures


def _room(reader: Callable[[str, str], Iterable[object]], texts: list[tuple[str, str]]) -> Callable[[], None]:
    def run() -> None:
        for source, text in texts:
            for hand in reader(text, source):
                if isinstance(hand, HandRecord):
                    judge(hand)

    return run


def games_table() -> tuple[list[str], list[Figure]]:
    """Per game: ours (read + settle + compare) and pokerkit's replay of the same PHH text, best of 3 rounds."""
    contenders: dict[str, tuple[Callable[[], object], int]] = {}
    settles: dict[str, str] = {}
    for row, name in GAME_FIXTURES:
        text, source = (GAMES / name).read_text(encoding="utf-8"), str(GAMES / name)
        (hand,) = read_phh(text, source)
        verdict = judge(hand) if isinstance(hand, HandRecord) else None
        settles[row] = (
            ""
            if verdict is not None and verdict.status == "match"
            else (verdict.reason if verdict is not None else str(hand))
        )
        contenders[f"ours {row}"] = (_ours(text, source), OURS_REPEAT)
        if _pokerkit_replays(text):
            contenders[f"pokerkit {row}"] = (_theirs(text), POKERKIT_REPEAT)
    best = race(contenders, rounds=3)
    holdem = best[f"ours {GAME_FIXTURES[0][0]}"]
    lines = [
        "",
        "### Per game",
        "",
        f"Each game's PHH fixture (tests/fixtures/replay/phh/games), ours {OURS_REPEAT} times and pokerkit's "
        f"`HandHistory.loads` + state replay {POKERKIT_REPEAT} times per round; best of 3 interleaved rounds. "
        "The last column is ours on the game against ours on hold'em (target: Omaha and stud within 2x).",
        "",
        "| game | ours per hand | pokerkit per hand | pokerkit's time / ours | ours / ours on hold'em |",
        "|---|---:|---:|---:|---:|",
    ]
    figures: list[Figure] = []
    for row, _ in GAME_FIXTURES:
        ours = best[f"ours {row}"]
        theirs = best.get(f"pokerkit {row}")
        ratio = f"{theirs / ours:.1f}x" if theirs else "n/a"
        note = f" (not settled: {settles[row][:60]})" if settles[row] else ""
        lines.append(
            f"| {row}{note} | {fmt_time(ours)} | {fmt_time(theirs) if theirs else 'cannot replay it'} | {ratio} "
            f"| {ours / holdem:.2f}x |"
        )
        if row.startswith(("Omaha (", "7-card stud")) and not settles[row]:
            figures.append(Figure(f"hold'em replay time / {row.split(' (')[0]}'s", holdem / ours, 0.5))
    return lines, figures


def _ours(text: str, source: str) -> Callable[[], None]:
    def run() -> None:
        for _ in range(OURS_REPEAT):
            for hand in read_phh(text, source):
                assert isinstance(hand, HandRecord)
                judge(hand)

    return run


def _theirs(text: str) -> Callable[[], None]:
    def run() -> None:
        for _ in range(POKERKIT_REPEAT):
            for _ in HandHistory.loads(text):
                pass

    return run


def _pokerkit_replays(text: str) -> bool:
    """pokerkit knows the variant code and can replay the hand (it has no notation for a second runout)."""
    try:
        for _ in HandHistory.loads(text):
            pass
    except (KeyError, ValueError):
        return False
    return True


def main() -> None:
    print(report())


if __name__ == "__main__":
    main()
