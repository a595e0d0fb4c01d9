"""``showdown rake``: the rake schedules known (shipped and configured), and what one takes from a pot.

``showdown rake --list`` prints one schedule a line (id, room, market,
currency, games, its versions' dates and the file it came from);
``showdown rake ID --pot CHIPS --players N [--big-blind CHIPS]
[--first-round] [--date YYYY-MM-DD]`` prints what schedule ID takes from
such a pot: the amount in minor units alone on the first line (for support
staff and scripts), then how it was found.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from decimal import Decimal

from showdown_core.rake import PPM, Hand, RakeError, Schedule, Tier, Version, rake_hand
from showdown_service.decision.rake_schedules import Schedules, load_schedules
from showdown_service.infra.config import Settings


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rake`` to the ``showdown`` parser."""
    r = commands.add_parser(
        "rake",
        help="list the rake schedules, or print what one takes from a pot (minor units on the first line)",
        description="Rake schedules (docs/rake.md): the shipped ones and SHOWDOWN_RAKE_SCHEDULES_DIR's.",
    )
    r.add_argument("id", nargs="?", metavar="ID", help="a schedule id (see --list)")
    r.add_argument("--list", action="store_true", help="list every schedule known, one a line")
    r.add_argument("--pot", type=_chips, metavar="CHIPS", help="the chips in the pots (minor units), uncalled bets out")
    r.add_argument("--players", type=_players, metavar="N", help="players dealt into the hand (2-10)")
    r.add_argument("--big-blind", type=_chips, metavar="CHIPS", help="the big blind (minor units): the stakes row")
    r.add_argument(
        "--first-round", action="store_true", help="the hand ended in its first betting round (no flop, no drop)"
    )
    r.add_argument("--date", type=date.fromisoformat, metavar="YYYY-MM-DD", help="the version in effect that day")
    r.set_defaults(run=run)


def _out(text: object) -> None:
    sys.stdout.write(f"{text}\n")


def _err(text: str) -> None:
    sys.stderr.write(f"{text}\n")


def _chips(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of minor units (cents)")
    return int(text)


def _players(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 10:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of players from 1 to 10")
    return int(text)


def run(args: argparse.Namespace) -> int:
    schedules = load_schedules(Settings().rake_schedules_dir)
    if args.list:
        if args.id is not None:
            _err("showdown rake: give --list or an ID, not both")
            return 2
        for line in listing(schedules):
            _out(line)
        return 0
    if args.id is None or args.pot is None or args.players is None:
        _err("showdown rake: give --list, or ID --pot CHIPS --players N")
        return 2
    schedule = schedules.get(args.id)
    if schedule is None:
        _err(f"showdown rake: {args.id!r} is no schedule known (see showdown rake --list)")
        return 2
    try:
        version = schedule.version_at(args.date)
        hand = Hand((args.pot,), args.players, args.big_blind, first_round=args.first_round)
        raked = rake_hand(version, hand)
        tier = version.tier(args.big_blind) if version.tiers else None
    except RakeError as exc:
        _err(f"showdown rake: {args.id}: {exc}")
        return 2
    _out(raked.rake)
    _out(f"schedule   {schedule.id} ({schedule.room}, {schedule.currency}), version from {version.effective_from}")
    _out(f"rule       {describe(version, tier)}")
    cap = "uncapped" if raked.cap is None else f"cap {raked.cap}"
    _out(f"pot        {args.pot}, {args.players} dealt in: {raked.uncapped} before the cap, {cap}")
    if args.first_round and version.no_flop_no_drop:
        _out("first round: no flop, no drop")
    return 0


def listing(schedules: Schedules) -> list[str]:
    """One line a schedule, by id."""
    return [_line(schedules[key], schedules.sources[key]) for key in sorted(schedules)]


def _line(schedule: Schedule, source: str) -> str:
    spans = ", ".join(f"{v.effective_from}..{v.effective_to or ''} {v.mode}" for v in schedule.versions)
    market = f" ({schedule.market})" if schedule.market else ""
    return f"{schedule.id}  {schedule.room}{market}  {schedule.currency}  {'/'.join(schedule.games)}  {spans}  {source}"


def describe(version: Version, tier: Tier | None) -> str:
    """The rule a stakes row posts, for people: ``4.5% (half_even), caps 50 / 100 / 150 for 2 / 3-4 / 5+``."""
    if tier is None or version.mode in {"time_collection", "tournament"}:
        return f"{version.mode}: nothing per hand"
    if version.mode == "percentage":
        rule = f"{Decimal(tier.rate_ppm) * 100 / PPM:f}% ({version.rounding})"
        if version.multiplier_ppm is not None:
            rule += f", times {Decimal(version.multiplier_ppm) * 100 / PPM:f}% ({version.rounding})"
    elif version.mode == "incremental":
        rule = f"{tier.take} for each {tier.per} in the pot ({version.rounding})"
    else:
        rule = f"a drop of {tier.drop}"
    if tier.caps:
        amounts = " / ".join(str(c.amount) for c in tier.caps)
        players = " / ".join(
            f"{c.players_from}+" if c.players_to is None else
            (str(c.players_from) if c.players_to == c.players_from else f"{c.players_from}-{c.players_to}")
            for c in tier.caps
        )  # fmt: skip
        rule += f", caps {amounts} for {players} players"
    return rule
