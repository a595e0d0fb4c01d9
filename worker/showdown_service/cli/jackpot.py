"""``showdown jackpot ID``: a jackpot's fund as its ledger holds it in Redis (docs/jackpot.md).

For each configured shard that holds the jackpot: its program, its balance, its seed, the hands that dropped
into it and the bad beats it paid (counted and summed), the last bad beat, and the money check
(``seed + dropped - paid == balance``). ``--json``: ``{"jackpot_id": ..., "funds": [...]}``, the body
``GET /v1/jackpots/{id}`` answers.

Exit status: 0 shown; 1 no configured shard holds the jackpot (named on stderr), or a fund's money check fails.
"""

from __future__ import annotations

import argparse
import json
import sys

from showdown_core.jackpot import Fund
from showdown_service.decision.render import escaped
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import connect
from showdown_service.worker.funds import fund_document, read_funds


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``jackpot ID`` to the ``showdown`` command line."""
    jackpot = commands.add_parser(
        "jackpot", help="a jackpot's fund (its balance, drops and payouts counted, the last bad beat) from Redis"
    )
    jackpot.add_argument("jackpot_id", metavar="ID")
    jackpot.add_argument("--json", action="store_true", help="print the fund on each shard holding it as JSON")
    jackpot.set_defaults(run=run_jackpot, finishes_on_stop=False)


def run_jackpot(args: argparse.Namespace) -> int:
    settings = Settings()
    client = connect(settings)  # no CLIENT SETNAME: the reader ACL user may not
    funds = read_funds(client, (settings.keys(shard) for shard in settings.shards), args.jackpot_id)
    if not funds:
        shards = ", ".join(settings.shards)
        sys.stderr.write(f"showdown jackpot: no fund of {escaped(args.jackpot_id)} on the shards {shards}\n")
        return 1
    if args.json:
        documents = [fund_document(shard, fund) for shard, fund in funds.items()]
        sys.stdout.write(json.dumps({"jackpot_id": args.jackpot_id, "funds": documents}) + "\n")
    else:
        sys.stdout.write("".join(_shown(args.jackpot_id, shard, fund) for shard, fund in funds.items()))
    return 0 if all(f.seed + f.dropped - f.paid == f.balance for f in funds.values()) else 1


def _shown(jackpot_id: str, shard: str, fund: Fund) -> str:
    """The fund for people: one line a figure, then the money check."""
    last = "none yet"
    if fund.last_bad_beat is not None:
        last = f"{escaped(fund.last_bad_beat)} paid {fund.last_paid} at {fund.last_at}"
    money = fund.seed + fund.dropped - fund.paid
    verdict = "holds" if money == fund.balance else "FAILS"
    return (
        f"jackpot {escaped(jackpot_id)} on shard {shard}\n"
        f"  program        {fund.program_id}\n"
        f"  balance        {fund.balance}\n"
        f"  seed           {fund.seed}\n"
        f"  hands          {fund.hands} ({fund.drops} dropped {fund.dropped} in all)\n"
        f"  bad beats      {fund.payouts} (paid {fund.paid} in all)\n"
        f"  last bad beat  {last}\n"
        f"  money          seed + dropped - paid = {fund.seed} + {fund.dropped} - {fund.paid} = {money}: {verdict}\n"
    )
