"""``showdown icm --stacks 1500,1200,975 --prizes 10000,7600 [--json]``: what each stack is worth (ICM).

A tool floor staff use before proposing a deal: each stack's Malmuth-Harville
value of the prizes (the currency's smallest unit), exact for up to 10
stacks (and larger fields with few prizes: :mod:`showdown_core.icm`), a seeded
Monte Carlo beyond, and the whole amounts a deal would pay (rounded by the
deal's rule: down, the units left over by largest fraction, ties to the bigger
stack, then the order given; they add up to the prizes). ``--json`` prints
only those amounts, as one list in the stacks' order.

Exit status: 0 done; 2 the stacks or prizes cannot be read or used.
"""

from __future__ import annotations

import argparse
import json
import sys

from showdown_core import InvalidEvent
from showdown_core.deals import round_amounts
from showdown_core.icm import icm, is_exact


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``icm`` to the ``showdown`` command line."""
    parser = commands.add_parser(
        "icm", help="each stack's ICM value of the prizes (Malmuth-Harville), as a deal would pay it"
    )
    parser.add_argument("--stacks", required=True, help="chip stacks, comma-separated: 1500,1200,975")
    parser.add_argument(
        "--prizes", required=True, help="prizes for 1st, 2nd, ... in the smallest unit, comma-separated: 10000,7600"
    )
    parser.add_argument("--json", action="store_true", help="print the rounded amounts as one JSON list of integers")
    parser.set_defaults(run=run_icm, finishes_on_stop=False)


def _numbers(text: str, name: str) -> list[int]:
    out = []
    for i, part in enumerate(text.split(",")):
        try:
            out.append(int(part.strip()))
        except ValueError:
            raise InvalidEvent.of("wrong_type", f"{name}[{i}]", f"{part.strip()!r} is not a whole number") from None
    return out


def run_icm(args: argparse.Namespace) -> int:
    try:
        stacks = _numbers(args.stacks, "stacks")
        prizes = _numbers(args.prizes, "prizes")
        values = icm(stacks, prizes)
    except InvalidEvent as exc:
        sys.stderr.write(f"showdown icm: {exc.message}\n")
        return 2
    amounts = round_amounts(values, stacks)
    if args.json:
        sys.stdout.write(json.dumps(list(amounts)) + "\n")
        return 0
    chips = sum(stacks)
    method = "exact" if is_exact(len(stacks), len(prizes)) else "Monte Carlo (seeded; beyond the exact bound)"
    rows = [f"ICM (Malmuth-Harville), {method}: {len(stacks)} stacks, {chips} chips, prizes {sum(prizes)}"]
    rows.append(f"{'stack':>14} {'chips':>8} {'value':>16} {'amount':>12}")
    for stack, value, amount in zip(stacks, values, amounts, strict=True):
        rows.append(f"{stack:>14} {stack / chips:>8.2%} {float(value):>16.2f} {amount:>12}")
    sys.stdout.write("\n".join(rows) + "\n")
    return 0
