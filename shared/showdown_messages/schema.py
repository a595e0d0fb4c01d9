"""JSON Schemas of every message, and an AsyncAPI 3.0 document of the whole service.

Both are generated from the models, committed under ``shared/schemas/``,
and checked for drift by the test suite; producers in any language can
generate clients from them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, RootModel

from showdown_messages.events import ShowdownEvent
from showdown_messages.records import AuditRecord, DeadLetter
from showdown_messages.results import ShowdownResult
from showdown_messages.tournaments import Placement, TournamentMessage
from showdown_rules.codes import CODES

DIALECT = "https://json-schema.org/draft/2020-12/schema"


class TournamentMessageDocument(RootModel[TournamentMessage]):
    """A tournament message (open, entry, chips, registration_closed, round_complete, deal), told apart by `type`."""

    model_config = ConfigDict(title="TournamentMessage")


MESSAGES: dict[str, tuple[type[BaseModel], str]] = {
    "showdown-event": (ShowdownEvent, "validation"),
    "tournament-message": (TournamentMessageDocument, "validation"),
    "placement": (Placement, "serialization"),
    "showdown-result": (ShowdownResult, "serialization"),
    "audit-record": (AuditRecord, "serialization"),
    "dead-letter": (DeadLetter, "serialization"),
}


def json_schemas() -> dict[str, dict[str, Any]]:
    """``{file name: JSON Schema}`` for each message, as committed under ``shared/schemas/``."""
    return {
        f"{name}.schema.json": {"$schema": DIALECT, **model.model_json_schema(mode=mode)}  # type: ignore[arg-type]
        for name, (model, mode) in MESSAGES.items()
    }


_CHANNELS = {
    "events": (
        "ShowdownEvent",
        "event",
        "One entry per finished hand; field `event` holds the JSON. Game servers do not write here: they RPUSH "
        "`event <JSON>` to the shard's inbox list `showdown:{<shard>}:inbox` (append only), which the workers move "
        "here in list order. A tournament's messages travel the same way (`tournament <JSON>`; field `tournament`), "
        "so one order covers its hands and messages. "
        "Routing, one rule for every producer: shard = shards[crc32(utf8(routing_id)) mod len(shards)], where "
        "routing_id is the tournament_id of a tournament's hand and of every tournament message, else the hand's "
        "table_id; crc32 is CRC-32/ISO-HDLC (zlib's, Go's crc32.ChecksumIEEE), unsigned; shards is the deployment's "
        "shard list in its configured order (SHOWDOWN_SHARDS). A hand or message reaching a shard other than the one "
        "holding its tournament is dead-lettered `wrong_shard`, naming the shard that holds it.",
    ),
    "results": (
        "ShowdownResult",
        "result",
        "One entry per settled hand; field `result` holds the JSON, field `entry_id` the id of the events-stream "
        "entry it settles (as its audit record and any dead letter name it), field `hand_id` the result's hand_id "
        "(a reader learns the hand without parsing the JSON; entries an older worker wrote lack it).",
    ),
    "audit": ("AuditRecord", "audit", "One entry per events-stream entry, hash-chained; field `audit` holds the JSON."),
    "dead": (
        "DeadLetter",
        None,
        "One entry per refused events-stream entry; its fields are the DeadLetter properties.",
    ),
    "standings": (
        "Placement",
        "placement",
        "One entry per tournament entry that finishes, written in the same commit as the hand or message that "
        "finished it; field `placement` holds the JSON.",
    ),
}
_ALSO_ON = {"TournamentMessage": ("events", "tournament")}
"""Messages that share another message's channel: title -> (channel, entry field)."""


def asyncapi_document(version: str) -> dict[str, Any]:
    """The service as AsyncAPI 3.0: the streams of a shard as channels, what flows through them, who does what."""
    schemas: dict[str, Any] = {}
    messages: dict[str, Any] = {}
    for name, (model, mode) in MESSAGES.items():
        schema = model.model_json_schema(mode=mode, ref_template="#/components/schemas/{model}")  # type: ignore[arg-type]
        schemas.update(schema.pop("$defs", {}))
        if isinstance(schema.get("discriminator"), dict):  # AsyncAPI 3 names the property only (JSON Schema + OpenAPI
            schema["discriminator"] = schema["discriminator"]["propertyName"]  # give an object)
        title = schema["title"]
        schemas[title] = schema
        field: str | None
        if title in _ALSO_ON:
            channel, field = _ALSO_ON[title]
        else:
            channel = next(c for c, (message, _, _) in _CHANNELS.items() if message == title)
            field = _CHANNELS[channel][1]
        where = f"the entry's `{field}` field holds this JSON" if field else "the entry's fields are this object's"
        messages[title] = {
            "name": title,
            "title": title,
            "contentType": "application/json",
            "summary": f"{(model.__doc__ or title).strip().splitlines()[0]} ({name})",
            "description": f"On the `{channel}` stream: {where}.",
            "payload": {"$ref": f"#/components/schemas/{title}"},
        }
    channels = {
        channel: {
            "address": f"showdown:{{shard}}:{channel}",
            "title": f"The {channel} stream of a shard",
            "description": f"{text} Redis stream key `showdown:{{<shard>}}:{channel}`: the braces stay, they are the "
            "Redis Cluster hash tag every key of a shard shares (e.g. showdown:{default}:"
            f"{channel}). Key prefix and names are configurable (SHOWDOWN_KEY_PREFIX, SHOWDOWN_*_NAME).",
            "parameters": {"shard": {"description": "The shard name, e.g. default.", "default": "default"}},
            "messages": {
                m: {"$ref": f"#/components/messages/{m}"}
                for m in (message, *[also for also, (on, _) in _ALSO_ON.items() if on == channel])
            },
        }
        for channel, (message, _, text) in _CHANNELS.items()
    }
    codes = "; ".join(f"`{code}`: {meaning}" for code, meaning in CODES.items())
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "showdown poker adjudication service",
            "version": version,
            "description": "Settles finished poker hands: best five of seven, main and side pots, split pots and "
            "odd chips by the rules, tournament busts. At-least-once delivery through a Redis Streams consumer "
            "group (`adjudicators`); exactly-once effect per entry and per hand_id within the dedupe TTL. "
            f"Dead-letter codes: {codes}",
            "license": {"name": "MIT"},
        },
        "defaultContentType": "application/json",
        "servers": {
            "redis": {
                "host": "localhost:6379",
                "protocol": "redis",
                "description": "Redis 7+ (or Valkey 8); rediss:// with TLS and an ACL user per role in production.",
            }
        },
        "channels": channels,
        "operations": {
            "settleEvents": {
                "action": "receive",
                "channel": {"$ref": "#/channels/events"},
                "summary": "Workers read entries with XREADGROUP in consumer group `adjudicators` and XACK them "
                "once their outcome is committed.",
                "messages": [
                    {"$ref": "#/channels/events/messages/ShowdownEvent"},
                    {"$ref": "#/channels/events/messages/TournamentMessage"},
                ],
            },
            "publishResults": {
                "action": "send",
                "channel": {"$ref": "#/channels/results"},
                "summary": "One ShowdownResult per settled hand (never for duplicates or refused entries).",
                "messages": [{"$ref": "#/channels/results/messages/ShowdownResult"}],
            },
            "publishAudit": {
                "action": "send",
                "channel": {"$ref": "#/channels/audit"},
                "summary": "One AuditRecord per events-stream entry, in the same atomic commit as its outcome.",
                "messages": [{"$ref": "#/channels/audit/messages/AuditRecord"}],
            },
            "publishDeadLetters": {
                "action": "send",
                "channel": {"$ref": "#/channels/dead"},
                "summary": "A DeadLetter for every refused entry: nothing is lost.",
                "messages": [{"$ref": "#/channels/dead/messages/DeadLetter"}],
            },
            "publishStandings": {
                "action": "send",
                "channel": {"$ref": "#/channels/standings"},
                "summary": "A Placement for every tournament entry that finishes (place, tie, prize, bounty cash), "
                "in the same atomic commit as the hand or message that finished it.",
                "messages": [{"$ref": "#/channels/standings/messages/Placement"}],
            },
        },
        "components": {"schemas": schemas, "messages": messages},
    }
