"""Read IGT network hand histories: JSON, Boss Media's format written as objects, cash games in cents.

Written from the real exports in ``../shared/data/rooms-more/IGT`` (2017-2019; ItalyToast's PokerHandHistoryParser
tests, MIT). A file is ``{"history": [...]}``, a hand an object with Boss Media's fields in camel case: ``game``
(``GAME_OMAHL``), ``gameKind``, ``tableCurrency``, ``table``, ``handId``, ``player`` (``{"name", "seat", "state",
"dealer", "amount"}``), ``action`` (``{"type", "kind", "player", "value", "card": [{"link"}]}``, every action with
the seat's ``bankRoll`` after it) and ``showDown`` (``{"pot", "rake", "result": [{"player", "win", "card"}]}``).
Each hand is built as Boss Media's ``<HISTORY>`` element and read by that reader (:mod:`.bossmedia`), with IGT's two
differences: a call's ``value`` is the street's total (``ACTION_CALL 670.00`` after a raise to 220 adds 450: its
``bankRoll`` says so), and ``ACTION_ADJUSTEMENT`` brings a bet nobody matched whole back down to ``value``, the most
anybody matched (the rest returned). Its ``limit`` (``No Limit``, ``Pot Limit``) and ``stake`` (``0.25/0.5``, or
``small`` and ``large`` apart) are Boss Media's ``LIMIT`` and ``STAKES``, for the hand's ``play``.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any, Final

from showdown_service.histories.bossmedia import read_history
from showdown_service.histories.errors import HandSyntaxError, ReplayError, unreadable
from showdown_service.histories.hands import HandRecord
from showdown_service.histories.reader import Reader
from showdown_service.histories.room_play import PlayBuilder

_LIMITS: Final = {"No Limit": "NL", "Pot Limit": "PL", "Fixed Limit": "FL"}
"""IGT's ``limit`` -> Boss Media's ``LIMIT``."""
_START: Final = re.compile(r'^\s*\{\s*"history"\s*:\s*\[')


def starts_igt(text: str) -> bool:
    """Whether ``text`` (a file opening with ``{``) is IGT's JSON: ``{"history": [...``."""
    return _START.match(text.lstrip("\ufeff")) is not None


def read_igt(text: str, source: str) -> Iterator[HandRecord | ReplayError]:
    """Each hand of an IGT file's ``text``, read, or the error that stopped it."""
    body = text.replace("\ufeff", "")
    try:
        document = json.loads(body)
    except json.JSONDecodeError as exc:
        yield HandSyntaxError(source, None, exc.lineno, f"not JSON at column {exc.colno}: {exc.msg}")
        return
    except (ValueError, RecursionError) as exc:
        yield unreadable(exc, source, None, 1)
        return
    histories = document.get("history") if isinstance(document, dict) else None
    if not isinstance(histories, list):
        yield HandSyntaxError(source, None, 1, "no IGT 'history' list in the file")
        return
    for n, history in enumerate(histories):
        ident = history.get("handId") if isinstance(history, dict) else None
        # an error quotes what it is about: the hand in the file's history list (the file is one line of JSON)
        hand = PlayBuilder([f"hand {n + 1} of the history"], source, f"igt:{ident or n + 1}", 0)
        try:
            if not isinstance(history, dict):
                raise HandSyntaxError(source, hand.hand_id, 1, f"hand {n + 1} is not an object")
            yield read_history(hand, _element(history), calls_to_total=True)
        except ReplayError as exc:
            yield exc
        except Exception as exc:  # a value of a kind the reader did not foresee: this hand's error
            yield unreadable(exc, source, hand.hand_id, 1, hand.game_name)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _cards(parent: ET.Element, cards: Any) -> None:
    for card in cards if isinstance(cards, list) else []:
        ET.SubElement(parent, "CARD", {"LINK": _text(card.get("link") if isinstance(card, dict) else card)})


def _element(history: dict[str, Any]) -> ET.Element:
    """The hand as Boss Media's ``<HISTORY>`` element."""
    root = ET.Element("HISTORY", {
        "ID": _text(history.get("handId")), "TABLE": _text(history.get("table")), "GAME": _text(history.get("game")),
        "GAMEKIND": _text(history.get("gameKind")), "TABLECURRENCY": _text(history.get("tableCurrency")),
        "LIMIT": _LIMITS.get(_text(history.get("limit")), ""),
        "STAKES": _text(history.get("stake") or (history.get("large") and f"/{history.get('large')}")),
    })  # fmt: skip
    for player in history.get("player") or []:
        ET.SubElement(root, "PLAYER", {
            "NAME": _text(player.get("name")), "SEAT": _text(player.get("seat")), "AMOUNT": _text(player.get("amount")),
            "STATE": _text(player.get("state")), "DEALER": _text(player.get("dealer")),
        })  # fmt: skip
    for action in history.get("action") or []:
        attributes = {"TYPE": _text(action.get("type")), "PLAYER": _text(action.get("player"))}
        for key, name in (("value", "VALUE"), ("kind", "KIND")):
            if action.get(key) is not None:
                attributes[name] = _text(action.get(key))
        _cards(ET.SubElement(root, "ACTION", attributes), action.get("card"))
    showdown = history.get("showDown")
    if isinstance(showdown, dict):
        element = ET.SubElement(
            root, "SHOWDOWN", {"POT": _text(showdown.get("pot")), "RAKE": _text(showdown.get("rake"))}
        )
        for result in showdown.get("result") or []:
            out = ET.SubElement(
                element, "RESULT", {"PLAYER": _text(result.get("player")), "WIN": _text(result.get("win"))}
            )
            _cards(out, result.get("card"))
    return root


READER: Final = Reader("igt", lambda head: head.line.startswith("{") and starts_igt(head.text), read_igt)
