"""Knockout lines of a history that gives no bounty on the heads: what can still be checked.

A PokerStars history may write who won a bounty (``wins the $X bounty``, ``split the $X bounty``, ``wins $C for
eliminating Y and their own bounty increases by $A to $N``) without the bounty on each head (no seat bounties and
no bounty in a buy-in of two amounts, or a progressive knockout without seat bounties). The rules cannot award a
bounty they are not given, but the lines say enough to check (issue 27, docs/replay.md, Knockouts):

* every player a line says was eliminated is a bust by the rules;
* the winners a line names are the winners of the relevant pot (the pot that held the eliminated player's last
  chips, :mod:`showdown_core.bounties`): a bounty to a player who folded, or who won only another pot, is wrong;
* the bounty the lines add up to for one eliminated player (a knockout's whole bounty; a progressive knockout's
  cash and added parts of every winner) is divided among them as the rules divide it: each winner's cash and added
  part, PokerStars' 50% with the odd cent on the cash side (the core's own award, given that bounty);
* no head below the buy-in's bounty, when the buy-in states one (``$12.30+$12.25+$2.45``: every entry starts
  with that bounty, and a head only grows): neither the bounty the lines add up to, nor a progressive winner's own
  bounty before the award (the bounty now less the increase).

GGPoker histories print neither heads nor bounty lines (docs/replay.md, GGPoker): there nothing is written to
check, and the eliminations are the rules' alone.
"""

from __future__ import annotations

from showdown_core import Settlement
from showdown_core.bounties import award_bounties
from showdown_rules.limits import PPM
from showdown_service.histories.hands import Bounty, HandRecord
from showdown_service.histories.pokerstars import PKO_CASH_PPM


def _money(cents: int, currency: str) -> str:
    return f"{currency}{cents // 100}.{cents % 100:02d}"


def check_without_heads(record: HandRecord, settlement: Settlement) -> str | None:
    """Why the hand's knockout lines disagree with the rules when the history gives no bounty on the heads, or
    ``None`` when every check that can run passes."""
    currency = record.currency
    busts = {b.player_id for b in settlement.busts}
    lines: dict[str, list[Bounty]] = {}
    for line in record.bounties:
        lines.setdefault(line.eliminated, []).append(line)
    for name in lines:
        if name not in busts:
            return f"the history pays a bounty for eliminating {name}; the rules do not eliminate {name}"
    written = {name: sum(b.cents + b.increase_cents for b in found) for name, found in lines.items()}
    floor = record.buy_in_bounty
    for name, bounty in written.items():
        if floor is not None and bounty < floor:
            return (
                f"the bounty for eliminating {name} adds up to {_money(bounty, currency)} in the history's lines, "
                f"below the buy-in's {_money(floor, currency)} (a head starts with it and only grows)"
            )
        for b in lines[name]:
            if floor is not None and b.kind == "progressive" and b.now_cents - b.increase_cents < floor:
                before = b.now_cents - b.increase_cents
                return (
                    f"{b.winners[0]}'s own bounty before eliminating {name} was {_money(before, currency)} by line "
                    f"{b.line}, below the buy-in's {_money(floor, currency)}"
                )
    progressive = any(b.kind == "progressive" for b in record.bounties)
    showdown = settlement.showdown
    heads = tuple(written.get(s.player_id, 0) for s in showdown.seats)
    awards = award_bounties(
        showdown, settlement.pots, settlement.collected, settlement.shown, heads, PKO_CASH_PPM if progressive else PPM
    )
    for award in awards:
        found = lines[award.player_id]
        ours = {share.player_id: share for share in award.winners}
        theirs = {winner for b in found for winner in b.winners}
        if theirs != set(ours):
            stranger = sorted(theirs - set(ours))
            who = (
                f"{', '.join(stranger)} won no part of the pot that held {award.player_id}'s last chips"
                if stranger
                else f"the history leaves out {', '.join(sorted(set(ours) - theirs))}"
            )
            return (
                f"bounty for eliminating {award.player_id}: the history pays {', '.join(sorted(theirs))}; {who} "
                f"(the rules' winners of that pot: {', '.join(sorted(ours))})"
            )
        for b in found:
            if b.kind != "progressive":
                continue
            share = ours[b.winners[0]]
            if (b.cents, b.increase_cents) != (share.cash, share.added):
                return (
                    f"bounty for eliminating {award.player_id}: recorded {b.winners[0]} {_money(b.cents, currency)} "
                    f"cash + {_money(b.increase_cents, currency)} added; of the {_money(award.bounty, currency)} the "
                    f"lines add up to, the rules give {_money(share.cash, currency)} cash + "
                    f"{_money(share.added, currency)} added"
                )
    return None


def note_without_heads(record: HandRecord) -> str:
    """The match's note: what was checked of the lines without the heads."""
    floor = record.buy_in_bounty
    below = f", no head below the buy-in's {_money(floor, record.currency)}" if floor is not None else ""
    return (
        "knockout lines checked without the bounties on the heads (the history gives none): the winners are the "
        "relevant pot's, the division and the cash and added parts the rules' for the bounty the lines add up "
        f"to{below}"
    )
