"""The read API's pages of results and dead letters: :mod:`showdown_service.read.pages`' (the one results filter
and cursor), a ``since`` or ``cursor`` that is none answered ``400 bad_query``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from showdown_service.api.auth import Refused
from showdown_service.infra.config import Settings
from showdown_service.infra.connection import Client
from showdown_service.read import pages
from showdown_service.read.pages import PageQuery, ResultFilter

FILTERS = ("hand_id", "player_id", "table_id", "tournament_id")
"""The results route's filters (:class:`~showdown_service.read.pages.ResultFilter`)."""


def _answered(read: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return read()
    except pages.BadQuery as exc:
        raise Refused(400, "bad_query", exc.message) from exc


def _query(given: dict[str, Any]) -> PageQuery:
    return PageQuery(given.pop("since"), given.pop("cursor"), given.pop("limit"), given.pop("scan_max"))


def results_page(client: Client, settings: Settings, **given: Any) -> dict[str, Any]:
    """``{"items": [{"shard", "id", "result"}...], "next"}``: the results matching every filter given (the route's
    query: the filters, ``since``, ``cursor``, ``limit``, ``scan_max``)."""
    query = _query(given)
    wanted = ResultFilter(**{name: given.pop(name) for name in FILTERS})
    return _answered(lambda: pages.results_page(client, settings, wanted, query))


def dead_letters_page(client: Client, settings: Settings, **given: Any) -> dict[str, Any]:
    """``{"items": [<dead letter>...], "next"}``: the dead letters matching every filter given (``code``,
    ``tournament_id``, ``hand_id``)."""
    query = _query(given)
    return _answered(lambda: pages.dead_letters_page(client, settings, query, **given))
