"""Results for people: one readable line from a ShowdownResult document."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from showdown_rules import ISO_4217_EXPONENTS, in_units


def describe_result(result: Mapping[str, Any], places: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """``hand: main pot 900: alice 900 (Full house, Kings full of Fives); bob busts``.

    An all-in cash-out is said after the pots: ``alice cashed out on the flop for 812 (equity 907/990), the
    house takes its 900``.

    A tournament bust says its place when ``places`` (player id -> that player's newest placement object in
    the hand's tournament) has one, the bounty it paid: ``dev busts in 4th place, bounty 1001: ben 501
    (251 cash + 250 added), cai 500 (250 cash + 250 added)``, and the mystery-bounty envelope drawn for it:
    ``, mystery bounty 6000: ana 6000``. A hand without a ``tournament_id`` has no bust line (a cash hand
    that empties a stack: the player reloads or leaves; busting is a tournament's notion).

    A result with a ``currency`` gives its amounts in the currency's units after the code: ``hand (USD): main pot
    9.00: alice 9.00 (...)`` for 900 cents.
    """
    names = {a["seat"]: escaped(a["player_id"]) for a in result["awards"]}
    currency = result.get("currency")
    cash = _in(currency)
    parts = []
    for pot in result["pots"]:
        label = "main pot" if pot["index"] == 0 else f"side pot {pot['index']}"
        won = " + ".join(f"{names[w['seat']]} {cash(w['amount'])}" for w in pot["winners"])
        raked = f", rake {cash(pot['rake'])}" if pot.get("rake") else ""
        if pot.get("parts"):  # divided into runs or hi/lo halves: say who took each part, and with what
            won = ", ".join(_part(p, names, cash, runs=pot["parts"][-1]["run"] > 1) for p in pot["parts"])
            parts.append(f"{label} {cash(pot['amount'])}{raked}: {won}")
            continue
        hand = f" ({pot['hand']})" if pot.get("hand") else ""
        parts.append(f"{label} {cash(pot['amount'])}{raked}: {won}{hand}")
    parts += [f"{names[r['seat']]} gets {cash(r['amount'])} back" for r in result.get("returned", ())]
    parts += [
        f"{names[c['seat']]} cashed out on the {c['street']} for {cash(c['amount'])} (equity {c['equity']}), "
        f"the house takes its {cash(c['runout'])}"
        for c in result.get("cashouts", ())
    ]
    if jackpot := result.get("jackpot"):
        parts.append(_jackpot(jackpot, names, cash))
    paid = {b["seat"]: b for b in result.get("bounties", ())}
    drawn = {b["seat"]: b for b in result.get("mystery_bounties", ())}
    if result.get("tournament_id") is not None:
        parts += [
            _bust(b, paid.get(b["seat"]), (places or {}).get(b["player_id"]), drawn.get(b["seat"]))
            for b in result.get("busts", ())
        ]
    named = f" ({currency})" if cash is not str else ""
    return f"{escaped(result['hand_id'])}{named}: " + "; ".join(parts)


def _in(currency: object) -> Callable[[int], str]:
    """How ``currency``'s amounts are written: in its units (``in_units``) when it is a code the table knows, else
    as the whole numbers they are (no currency, or one a result from elsewhere names that the table lacks)."""
    if isinstance(currency, str) and currency in ISO_4217_EXPONENTS:
        return lambda amount: in_units(amount, currency)
    return str


def _jackpot(jackpot: Mapping[str, Any], names: Mapping[int, str], cash: Callable[[int], str] = str) -> str:
    """``jackpot 200 dropped to ggpoker-bbj-usd`` and, for a bad beat, who loses with what and the roles' shares."""
    said = f"jackpot {cash(jackpot['drop'])} dropped to {escaped(jackpot['jackpot_id'])}"
    if "fund_before" in jackpot:  # the fund kept as a ledger: its balance before and after
        said += f" (fund {cash(jackpot['fund_before'])} -> {cash(jackpot['fund_after'])})"
    if not jackpot["bad_beat"]:
        return said
    roles = ", ".join(
        f"{names.get(r['seat'], r['seat'])} {r['role']} {r['ppm'] / 10_000:g}%"
        + (f" {cash(r['amount'])}" if "amount" in r else "")
        for r in jackpot["roles"]
    )
    return f"{said}; bad beat: {jackpot['losing_hand']} loses to {jackpot['winning_hand']} ({roles} of the fund)"


def _part(part: Mapping[str, Any], names: Mapping[int, str], cash: Callable[[int], str], *, runs: bool) -> str:
    """``run 2 low 25: bob 25 (Seven-four low)``."""
    where = " ".join(([f"run {part['run']}"] if runs else []) + ([part["half"]] if part["half"] != "whole" else []))
    won = " + ".join(f"{names[w['seat']]} {cash(w['amount'])}" for w in part["winners"])
    return f"{where or 'all'} {cash(part['amount'])}: {won} ({part['hand']})"


def escaped(text: str) -> str:
    """An id as a terminal may show it: a character that is not printable (a control, a format character such as
    U+202E right-to-left override, which would reverse the row, a line separator) as its escape, ``\\u202e``.
    The contract refuses such ids (``bad_id``); a ledger or a result written before it did may still hold one."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _bust(
    bust: Mapping[str, Any],
    bounty: Mapping[str, Any] | None,
    placement: Mapping[str, Any] | None,
    envelope: Mapping[str, Any] | None = None,
) -> str:
    text = f"{escaped(bust['player_id'])} busts"
    if placement is not None and placement.get("place") is not None:
        tied = " (tied)" if placement.get("tied", 1) > 1 else ""
        text += f" in {_ordinal(placement['place'])} place{tied}"
        if placement.get("prize"):
            text += f", prize {placement['prize']}"
    if bounty is not None:
        shares = ", ".join(
            f"{escaped(w['player_id'])} {w['amount']} ({w['cash']} cash + {w['added']} added)"
            for w in bounty["winners"]
        )
        text += f", bounty {bounty['bounty']}: {shares}"
    if envelope is not None:
        shares = ", ".join(f"{escaped(w['player_id'])} {w['cash']}" for w in envelope["winners"])
        text += f", mystery bounty {envelope['bounty']}: {shares}"
    return text


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
