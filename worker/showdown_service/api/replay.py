"""A settled hand given back whole by the read API (issue 36 items 5-6): ``/v1/hands/{id}/history`` (PHH or
Open Hand History, the writers of ``showdown hand --history``) and the replay page ``/hands/{id}``.

Both need the event's ``play`` and the result: the event is read from the events stream entry the hand's audit
record names, or from the archive when Redis has trimmed it. Both are behind the ``hands:read`` scope (a room
embeds the page behind its own login, its server sending the token). The page is one HTML document with the
hand in it (no further request): Pennsylvania's replay list (58 Pa. Code 810a.11(a)): the date and time, the
final display, each seat's chips at the start and end, total bet and total won, every choice street by street
(the intermediate phases, stepped through), and promotional awards (bounties) when the hand paid any.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any
from urllib.parse import quote

import orjson

from showdown_service.api.auth import Refused
from showdown_service.api.state import Api
from showdown_service.archive.proofs import place_in_log
from showdown_service.histories.export import NotAHistory, ohh_in_minor_units, ohh_json, phh_text
from showdown_service.read.hands import event_of_entry, in_archive

PAGE_MARK = "/*HAND*/null"
"""Where the page's template takes the hand (a JSON object)."""


Place = tuple[str, int, str]
"""Where the entry that settled a hand sits: its shard, seq and entry id."""


def settled_hand(state: Api, hand_id: str, permit: Any) -> tuple[dict[str, Any], dict[str, Any], Place | None]:
    """The event and result of a settled hand; :class:`Refused` 404 when it is unknown or was not settled. The
    event is the one its newest audit record settled (never a later re-send's, a ``duplicate`` or a
    ``conflicting_duplicate``: for those, the archive's entry that settled it), and where that entry sits (None
    when neither says)."""
    found = state.index.lookup(hand_id, permit)
    if found["status"] != "settled" or not isinstance(found.get("result"), dict):
        raise Refused(404, "not_settled", f"hand {hand_id} is {found['status']}: only a settled hand is replayed")
    event = None
    place: Place | None = None
    where = state.index.audit.get(hand_id)
    newest = found.get("audit") or {}
    if where is not None and newest.get("outcome") == "settled":  # else a later entry (a re-send): the archive's
        entry = where[2].decode()
        event = event_of_entry(state.client, state.settings.keys(where[0]), entry)
        seq = newest.get("seq")
        place = (where[0], seq, entry) if isinstance(seq, int) else None
    if event is None and state.settings.archive_url:
        archived = in_archive(state.settings, hand_id)
        if archived is not None:
            event = archived.event
            place = (archived.shard, archived.seq, archived.entry_id) if archived.seq is not None else None
    if not isinstance(event, dict):
        raise Refused(
            404,
            "event_gone",
            f"hand {hand_id}: the event that settled it is neither in Redis "
            "(its newest entry there is a later re-send, or trimmed) nor in the archive",
        )
    return event, found["result"], place


def log_line(state: Api, hand_id: str, place: Place | None) -> dict[str, Any] | None:
    """The hand page's line on where the hand sits in its shard's Merkle log (issue 37 item 6), with the link to its
    inclusion proof when a signed tree head holds it; None when the entry's place is unknown."""
    if place is None:
        return None
    where, provable = place_in_log(state.settings, place[0], place[1], place[2])
    return {"where": where, "proof": f"/v1/hands/{quote(hand_id, safe='')}/proof" if provable else None}


def history(event: dict[str, Any], result: dict[str, Any], fmt: str) -> tuple[bytes, str]:
    """The hand as ``fmt`` (``phh`` or ``ohh``): the body and its media type; 409 ``no_history`` naming why."""
    try:
        if fmt == "ohh":
            return ohh_json(event, result).encode(), "application/json"
        return phh_text(event, result).encode(), "application/toml"
    except NotAHistory as exc:
        raise Refused(409, "no_history", str(exc)) from exc


def replay_document(event: dict[str, Any], result: dict[str, Any], log: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the page draws: the hand's header, each seat's money, the streets with their actions, the pots, and
    where the hand sits in the Merkle log (``log``: :func:`log_line`)."""
    try:
        ohh = ohh_in_minor_units(event, result)["ohh"]  # the page writes amounts in the hand's currency itself
    except NotAHistory as exc:
        raise Refused(409, "no_history", str(exc)) from exc
    names = {p["id"]: p["name"] for p in ohh["players"]}
    awards = {a["seat"]: a for a in result["awards"]}
    shown: dict[str, list[str]] = {}
    streets = []
    for round_doc in ohh["rounds"]:
        actions = []
        for action in round_doc["actions"]:
            name = names[action["player_id"]]
            if action.get("cards"):
                shown[name] = action["cards"]
            actions.append({"player": name, "action": action["action"], "amount": action.get("amount"),
                            "allin": bool(action.get("is_allin")), "cards": action.get("cards")})  # fmt: skip
        streets.append({"street": round_doc["street"], "cards": round_doc.get("cards") or [], "actions": actions})
    players = []
    for p in ohh["players"]:
        award = awards.get(p["seat"], {})
        amount, net = award.get("amount", 0), award.get("net", 0)
        players.append({
            "seat": p["seat"], "player": p["name"], "start": p["starting_stack"], "bet": amount - net,
            "won": amount, "end": award.get("end_stack"), "folded_on": award.get("folded_on"),
            "cards": shown.get(p["name"]),
        })  # fmt: skip
    seat_names = {p["seat"]: p["name"] for p in ohh["players"]}
    pots = [
        {"pot": pot.get("index"), "amount": pot.get("amount"), "rake": pot.get("rake", 0), "hand": pot.get("hand"),
         "winners": [{"player": seat_names.get(w["seat"], str(w["seat"])), "amount": w["amount"]}
                     for w in pot.get("winners") or ()]}
        for pot in result.get("pots") or ()
    ]  # fmt: skip
    bounties = [
        {"player": seat_names.get(b.get("seat"), str(b.get("seat"))), "bounty": b.get("bounty")}
        for b in result.get("bounties") or ()
    ]
    return {
        "hand_id": ohh["game_number"], "table": ohh["table_name"], "at": ohh["start_date_utc"],
        "game": f"{ohh['bet_limit']['bet_type']} {ohh['game_type']}",
        "currency": result.get("currency") or "chips",  # the result's ISO 4217 code; else the table's chips
        "tournament": event.get("tournament_id"), "players": players, "streets": streets, "pots": pots,
        "bounties": bounties, "log": log,
    }  # fmt: skip


def page(document: dict[str, Any]) -> str:
    """The replay page with ``document`` in it (``</`` escaped: nothing in it can end the script element)."""
    template = files("showdown_service.api").joinpath("hand.html").read_text(encoding="utf-8")
    data = orjson.dumps(document).decode().replace("</", "<\\/").replace("<!--", "<\\!--")
    return template.replace(PAGE_MARK, data, 1)
