"""Results for people: one readable line from a ShowdownResult document."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def describe_result(result: Mapping[str, Any]) -> str:
    """``hand: main pot 900: alice 900 (Full house, Kings full of Fives); bob busts``."""
    names = {a["seat"]: escaped(a["player_id"]) for a in result["awards"]}
    parts = []
    for pot in result["pots"]:
        label = "main pot" if pot["index"] == 0 else f"side pot {pot['index']}"
        won = " + ".join(f"{names[w['seat']]} {w['amount']}" for w in pot["winners"])
        raked = f", rake {pot['rake']}" if pot.get("rake") else ""
        if pot.get("parts"):  # divided into runs or hi/lo halves: say who took each part, and with what
            won = ", ".join(_part(p, names, runs=pot["parts"][-1]["run"] > 1) for p in pot["parts"])
            parts.append(f"{label} {pot['amount']}{raked}: {won}")
            continue
        hand = f" ({pot['hand']})" if pot.get("hand") else ""
        parts.append(f"{label} {pot['amount']}{raked}: {won}{hand}")
    parts += [f"{names[r['seat']]} gets {r['amount']} back" for r in result.get("returned", ())]
    parts += [f"{escaped(b['player_id'])} busts" for b in result.get("busts", ())]
    return f"{escaped(result['hand_id'])}: " + "; ".join(parts)


def _part(part: Mapping[str, Any], names: Mapping[int, str], *, runs: bool) -> str:
    """``run 2 low 25: bob 25 (Seven-four low)``."""
    where = " ".join(([f"run {part['run']}"] if runs else []) + ([part["half"]] if part["half"] != "whole" else []))
    won = " + ".join(f"{names[w['seat']]} {w['amount']}" for w in part["winners"])
    return f"{where or 'all'} {part['amount']}: {won} ({part['hand']})"


def escaped(text: str) -> str:
    """An id as a terminal may show it: a character that is not printable (a control, a format character such as
    U+202E right-to-left override, which would reverse the row, a line separator) as its escape, ``\\u202e``.
    The contract refuses such ids (``bad_id``); a ledger or a result written before it did may still hold one."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
