"""Write a settled hand as a hand history: PHH (phh-std TOML) or Open Hand History JSON (hh-specs 1.4).

What a hand history needs is what the archive keeps (issue 36 item 5): the event's exact text, with its
``play`` (phh-std's own fields and actions), and the result. The writers take both as the JSON objects they
are (``showdown hand``'s ``event`` and ``result``) and give text ``showdown replay`` reads back to the same
settlement:

* PHH: the ``play`` line for line (``variant``, ``antes``, ``blinds_or_straddles``, ``bring_in``,
  ``small_bet``, ``big_bet``, ``min_bet``, ``starting_stacks``, ``actions``), the players' ``player_id`` as
  ``players``, the result's end stacks as ``finishing_stacks`` (what the replay compares its settlement with),
  and the event's ``currency`` when it names one. Every game the ``play`` can hold.
* Open Hand History: a board game of one board (hold'em, Omaha, Omaha Hi/Lo: the games the standard and our
  reader share), each action with the chips it puts in (as the standard writes them: a raise's ``amount`` is
  what the raise adds), the board by street, the cards shown at the showdown, and the result's pots with
  their rake and each winner's share. A hand in a currency (the event's ISO 4217 ``currency``) is written in it,
  its amounts in major units as the standard wants them (``1.50`` USD for 150 cents, ``1500`` JPY, ``0.125`` BHD:
  scaled by the currency's minor-unit exponent with :class:`~decimal.Decimal`, exactly, never through a float);
  a tournament's chips and a hand without a currency are written whole, ``currency`` ``CHIPS``
  (:func:`ohh_json` writes the JSON: Python's and orjson's encoders write no Decimal as a number).

A hand without ``play`` (a v1 event: the showdown only), without a result (refused: nothing was settled), or
of a game the format cannot hold is :class:`NotAHistory`, naming why.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Final

import orjson

from showdown_rules.currencies import ISO_4217_EXPONENTS

PHH_FIELDS: Final = (
    "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in", "small_bet", "big_bet", "min_bet",
    "starting_stacks", "actions",
)  # fmt: skip
"""The ``play`` fields a PHH file carries, in the order phh-std's own files write them (those the play has)."""
OHH_GAMES: Final = {"T": "Holdem", "O": "Omaha", "O/8": "OmahaHiLo"}
"""phh-std game codes Open Hand History writes (``game_type``), and our reader reads back."""
OHH_LIMITS: Final = {"N": "NL", "P": "PL", "F": "FL"}
OHH_SPEC: Final = "1.4.6"
_STREETS: Final = ("Preflop", "Flop", "Turn", "River")


class NotAHistory(ValueError):
    """A hand that cannot be written as a hand history in the format asked: the message says why."""


def _play_and_result(event: Any, result: Any) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The event's ``play``, the result and the event's players, or :class:`NotAHistory`."""
    if not isinstance(event, dict):
        raise NotAHistory("the archive holds no event for it (or not a JSON object)")
    hand = event.get("hand_id", "?")
    play = event.get("play")
    if not isinstance(play, dict):
        raise NotAHistory(f"hand {hand}: its event has no play (a v1 event: the showdown only, not the betting)")
    if not isinstance(result, dict) or not isinstance(result.get("awards"), list):
        raise NotAHistory(f"hand {hand}: it was not settled (no result): nothing to write")
    players = event.get("players")
    if not isinstance(players, list) or len(players) != len(play.get("starting_stacks") or ()):
        raise NotAHistory(f"hand {hand}: its players are not one per entry of play.starting_stacks")
    if len(event.get("boards") or ()) > 1:
        raise NotAHistory(f"hand {hand}: a hand run more than once is not written (its board runs are not yet)")
    return play, result, players


def _end_stacks(hand: Any, players: list[dict[str, Any]], result: dict[str, Any]) -> list[int]:
    ends = {award.get("seat"): award.get("end_stack") for award in result["awards"]}
    stacks = [ends.get(player.get("seat")) for player in players]
    if any(not isinstance(stack, int) for stack in stacks):
        raise NotAHistory(f"hand {hand}: its result gives no end stack for every seat")
    return stacks  # type: ignore[return-value]  # every one an int: checked


def _toml(value: Any) -> str:
    """A TOML value: booleans, integers, strings (literal when they can be, else basic), arrays of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        printable = value.isprintable() and "'" not in value
        return f"'{value}'" if printable else json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    raise NotAHistory(f"{value!r} is not a value a PHH file holds")


def phh_text(event: Any, result: Any) -> str:
    """The settled hand as one PHH hand: ``key = value`` lines (no table header), ending in a newline."""
    play, result, players = _play_and_result(event, result)
    hand = event.get("hand_id")
    lines = [f"# showdown hand {json.dumps(hand, ensure_ascii=False)}, table {json.dumps(event.get('table_id'))}"]
    lines += [f"{name} = {_toml(play[name])}" for name in PHH_FIELDS if play.get(name) is not None]
    lines.append(f"players = {_toml([str(p.get('player_id')) for p in players])}")
    lines.append(f"finishing_stacks = {_toml(_end_stacks(hand, players, result))}")
    currency = event.get("currency")
    if isinstance(currency, str):
        lines.append(f"currency = {_toml(currency)}")
    return "\n".join(lines) + "\n"


OHH_CHIPS: Final = "CHIPS"
"""The ``currency`` of a hand in chips: a tournament's, or a table's without a currency."""
_MONEY_FIELDS: Final = {
    "ohh": ("small_blind_amount", "big_blind_amount", "ante_amount"),
    "players": ("starting_stack",),
    "actions": ("amount",),
    "pots": ("amount", "rake", "jackpot"),
    "player_wins": ("win_amount",),
}
"""The amounts of an Open Hand History object, by the object holding them."""


def ohh_currency(event: Any) -> tuple[str, int]:
    """The ``currency`` an Open Hand History object of ``event`` names and its minor-unit exponent: the event's ISO
    4217 code (a cash game's), else :data:`OHH_CHIPS` (a tournament's chips, a table without a currency), 0."""
    code = event.get("currency") if isinstance(event, dict) and event.get("tournament_id") is None else None
    if isinstance(code, str) and code in ISO_4217_EXPONENTS:
        return code, ISO_4217_EXPONENTS[code]
    return OHH_CHIPS, 0


def ohh_document(event: Any, result: Any) -> dict[str, Any]:
    """The settled hand as one Open Hand History object ``{"ohh": {...}}``, every amount in the hand's currency's
    major unit (a :class:`~decimal.Decimal` with as many places as the currency's exponent; an ``int`` in chips and
    in a currency of exponent 0): write it with :func:`ohh_json`."""
    document = ohh_in_minor_units(event, result)
    _, exponent = ohh_currency(event)
    if exponent:
        _to_major(document, exponent)
    return document


def ohh_json(event: Any, result: Any, *, indent: bool = False) -> str:
    """:func:`ohh_document` as JSON text: each amount a JSON number written exactly (``1.50``), never a float's
    digits; two-space indented with ``indent``."""
    return _json(ohh_document(event, result), "\n" if indent else "")


def _json(value: Any, newline: str, depth: int = 0) -> str:
    if isinstance(value, Decimal):
        return format(value, "f")
    if not isinstance(value, dict | list) or not value:
        return orjson.dumps(value).decode()
    inner = f"{newline}{'  ' * (depth + 1)}" if newline else ""
    close = f"{newline}{'  ' * depth}" if newline else ""
    comma = "," if newline else ", "
    if isinstance(value, list):
        items = [_json(item, newline, depth + 1) for item in value]
        return "[" + inner + (comma + inner).join(items) + close + "]"
    pairs = [f"{orjson.dumps(key).decode()}: {_json(item, newline, depth + 1)}" for key, item in value.items()]
    return "{" + inner + (comma + inner).join(pairs) + close + "}"


def _to_major(document: dict[str, Any], exponent: int) -> None:
    """Every amount of an Open Hand History object (in minor units) in major units, in place: ``n`` minor units
    are ``Decimal(n).scaleb(-exponent)`` (exact: 150 -> ``1.50``)."""

    def scale(holder: dict[str, Any], kind: str) -> None:
        for name in _MONEY_FIELDS[kind]:
            if isinstance(holder.get(name), int):
                holder[name] = Decimal(holder[name]).scaleb(-exponent)

    ohh = document["ohh"]
    scale(ohh, "ohh")
    for player in ohh["players"]:
        scale(player, "players")
    for round_doc in ohh["rounds"]:
        for action in round_doc["actions"]:
            scale(action, "actions")
    for pot in ohh["pots"]:
        scale(pot, "pots")
        for win in pot["player_wins"]:
            scale(win, "player_wins")


def ohh_in_minor_units(event: Any, result: Any) -> dict[str, Any]:
    """:func:`ohh_document` with every amount a whole number of the hand's minor unit (the event's own numbers:
    what the replay page draws, in its currency)."""
    play, result, players = _play_and_result(event, result)
    hand = event.get("hand_id")
    code = str(play.get("variant", ""))
    limit, game = OHH_LIMITS.get(code[:1]), OHH_GAMES.get(code[1:])
    if limit is None or game is None:
        raise NotAHistory(
            f"hand {hand}: Open Hand History is written for hold'em, Omaha and Omaha Hi/Lo, not {code!r} (use PHH)"
        )
    n = len(players)
    seats = [int(p["seat"]) for p in players]
    stacks = [int(s) for s in play["starting_stacks"]]
    rounds = _ohh_rounds(hand, play, n)
    _show_the_rest(rounds, players)
    blinds = sorted(b for b in play.get("blinds_or_straddles") or () if b)
    antes = [a for a in play.get("antes") or () if a]
    button = event.get("button_seat")
    return {
        "ohh": {
            "spec_version": OHH_SPEC,
            "site_name": "showdown",
            "internal_version": "1",
            "tournament": event.get("tournament_id") is not None,
            **_tournament_info(event),
            "game_number": str(hand),
            "start_date_utc": event.get("occurred_at") or result.get("settled_at"),
            "table_name": str(event.get("table_id")),
            "game_type": game,
            "bet_limit": {"bet_type": limit, "bet_cap": 0},
            "table_size": n,
            "currency": ohh_currency(event)[0],
            "dealer_seat": int(button) if isinstance(button, int) else seats[-1],
            "small_blind_amount": blinds[0] if blinds else 0,
            "big_blind_amount": blinds[1] if len(blinds) > 1 else (blinds[0] if blinds else 0),
            "ante_amount": max(antes) if antes else 0,
            "players": [
                {"id": i, "seat": seats[i], "name": str(players[i].get("player_id")), "starting_stack": stacks[i]}
                for i in range(n)
            ],
            "rounds": [r for r in rounds if r["actions"] or r.get("cards") or r["street"] != "Showdown"],
            "pots": [_ohh_pot(hand, pot, seats) for pot in result.get("pots") or ()],
        }
    }


def _tournament_info(event: dict[str, Any]) -> dict[str, Any]:
    tournament = event.get("tournament_id")
    return {} if tournament is None else {"tournament_info": {"tournament_number": str(tournament)}}


def _blind_kind(chips: int, ranked: list[int]) -> str:
    """``Post SB`` (the smallest of two or more blinds), ``Post BB`` (the next, or the only one), ``Straddle``."""
    if chips == ranked[0] and len(ranked) > 1:
        return "Post SB"
    return "Post BB" if chips in ranked[:2] else "Straddle"


def _ohh_pot(hand: Any, pot: dict[str, Any], seats: list[int]) -> dict[str, Any]:
    index = {seat: i for i, seat in enumerate(seats)}
    wins = [{"player_id": index[share["seat"]], "win_amount": share["amount"]} for share in pot.get("winners") or ()]
    if sum(w["win_amount"] for w in wins) + pot.get("rake", 0) != pot["amount"]:
        raise NotAHistory(f"hand {hand}: pot {pot.get('index')}'s winners and rake are not its amount")
    return {"number": pot["index"], "amount": pot["amount"], "rake": pot.get("rake", 0), "jackpot": 0,
            "player_wins": wins}  # fmt: skip


def _ohh_rounds(hand: Any, play: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """The play's actions as Open Hand History rounds, each action with the chips it puts in (the betting was
    checked by the worker when the hand settled: this follows it, it does not judge it again)."""
    antes = list(play.get("antes") or [0] * n)
    blinds = list(play.get("blinds_or_straddles") or [0] * n)
    if n == 2:  # phh-std: heads-up, p1 is the big blind (the core's betting reverses both lists too)
        antes, blinds = antes[::-1], blinds[::-1]
    left = [int(s) for s in play["starting_stacks"]]
    bet = [0] * n
    count = 0
    rounds: list[dict[str, Any]] = [{"id": 0, "street": "Preflop", "actions": []}]
    showdown: dict[str, Any] = {"id": 0, "street": "Showdown", "actions": []}

    def add(into: dict[str, Any], i: int, kind: str, amount: int | None = None, cards: list[str] | None = None) -> None:
        nonlocal count
        count += 1
        action: dict[str, Any] = {"action_number": count, "player_id": i, "action": kind}
        if amount is not None:
            action["amount"] = amount
            if left[i] == 0 and kind not in ("Post Ante",):
                action["is_allin"] = True
        if cards is not None:
            action["cards"] = cards
        into["actions"].append(action)

    for i, chips in enumerate(antes):
        if chips:
            paid = min(int(chips), left[i])
            left[i] -= paid
            add(rounds[0], i, "Post Ante", paid)
    ranked = sorted({b for b in blinds if b})
    for i, chips in enumerate(blinds):
        if chips:
            paid = min(int(chips), left[i])
            left[i] -= paid
            bet[i] = paid
            add(rounds[0], i, _blind_kind(chips, ranked), paid)
    for k, action in enumerate(play.get("actions") or ()):
        words = str(action).split()
        if words[:2] == ["d", "db"] and len(words) == 3:
            if len(rounds) >= len(_STREETS):
                raise NotAHistory(f"hand {hand}: play.actions[{k}] deals a board after the river")
            cards = [words[2][j : j + 2] for j in range(0, len(words[2]), 2)]
            rounds.append({"id": len(rounds), "street": _STREETS[len(rounds)], "cards": cards, "actions": []})
            bet = [0] * n
            continue
        if words[:2] == ["d", "dh"]:
            continue  # own cards dealt: the showdown shows those it needs
        if not words or not words[0].startswith("p") or not words[0][1:].isdigit() or len(words) < 2:
            raise NotAHistory(f"hand {hand}: play.actions[{k}] {action!r} is not an action this writer knows")
        i, verb = int(words[0][1:]) - 1, words[1]
        if not 0 <= i < n:
            raise NotAHistory(f"hand {hand}: play.actions[{k}] names p{i + 1}, not a player of the hand")
        top = max(bet)
        if verb == "f":
            add(rounds[-1], i, "Fold")
        elif verb == "cc" and top > bet[i]:
            paid = min(top - bet[i], left[i])
            left[i] -= paid
            bet[i] += paid
            add(rounds[-1], i, "Call", paid)
        elif verb == "cc":
            add(rounds[-1], i, "Check")
        elif verb == "cbr" and len(words) == 3 and words[2].isdigit():
            paid = min(int(words[2]) - bet[i], left[i])
            left[i] -= paid
            bet[i] += paid
            add(rounds[-1], i, "Raise" if top else "Bet", paid)
        elif verb == "sm" and len(words) == 3:
            add(showdown, i, "Shows Cards", cards=[words[2][j : j + 2] for j in range(0, len(words[2]), 2)])
        elif verb == "sm":
            add(showdown, i, "Mucks Cards")
        else:
            raise NotAHistory(f"hand {hand}: play.actions[{k}] {action!r} is not an action of a board game")
    showdown["id"] = len(rounds)
    return [*rounds, showdown]


def _show_the_rest(rounds: list[dict[str, Any]], players: list[dict[str, Any]]) -> None:
    """The cards of every seat still in at a contested showdown that the actions did not show (the event states
    them: the settlement ranked them)."""
    live = [i for i, p in enumerate(players) if not p.get("folded")]
    if len(live) < 2:  # one seat left: no showdown
        return
    showdown = rounds[-1]
    done = {a["player_id"] for a in showdown["actions"]}
    number = max((a["action_number"] for r in rounds for a in r["actions"]), default=0)
    for i in live:
        cards = players[i].get("hole_cards")
        if i not in done and cards:
            number += 1
            showdown["actions"].append(
                {"action_number": number, "player_id": i, "action": "Shows Cards", "cards": list(cards)}
            )
