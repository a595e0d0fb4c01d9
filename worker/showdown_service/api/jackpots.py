"""``GET /v1/jackpots/{id}``: a jackpot's fund, as ``showdown jackpot ID --json`` prints it (docs/jackpot.md).

Read-only (one HGETALL of the fund's hash on each configured shard), behind the ``hands:read`` scope: a fund is
made of settled hands' drops and payouts, which that scope already shows one by one.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Path
from fastapi.responses import Response
from pydantic import BaseModel, Field
from pydantic_core import to_json

from showdown_rules.limits import ID_PATTERN, MAX_ID_LENGTH
from showdown_service.api.auth import Refused
from showdown_service.api.models import Error
from showdown_service.api.state import Api
from showdown_service.worker.funds import fund_document, read_funds

JackpotPath = Annotated[str, Path(min_length=1, max_length=MAX_ID_LENGTH, pattern=ID_PATTERN)]


class LastBadBeat(BaseModel):
    hand_id: str
    paid: int = Field(description="What it paid from the fund, minor units.")
    at: str | None = Field(description="When it was settled (its batch's instant).")


class Fund(BaseModel):
    """A jackpot's fund on one shard: its ledger in Redis."""

    shard: str
    program: str = Field(description="The program the jackpot was declared with (its first hand's).")
    balance: int = Field(description="The fund now: seed + dropped - paid, minor units.")
    seed: int = Field(description="What the room put in when declaring it.")
    hands: int = Field(description="Hands settled with the jackpot.")
    drops: int = Field(description="Of them, those that dropped something.")
    dropped: int = Field(description="Every drop, summed.")
    payouts: int = Field(description="Bad beats paid.")
    paid: int = Field(description="Every payout, summed.")
    last_bad_beat: LastBadBeat | None


class Jackpot(BaseModel):
    """A jackpot's fund on each configured shard holding it (one, when its tables route to one shard)."""

    jackpot_id: str
    funds: list[Fund]


def jackpot_routes(app: FastAPI, state: Api, hands: Any, errors: dict[int | str, dict[str, Any]]) -> None:
    """``GET /v1/jackpots/{jackpot_id}`` behind ``hands``'s scope; ``errors``: the refusals every route lists."""
    responses = {**errors, 404: {"model": Error, "description": "unknown_jackpot: no configured shard holds the fund."}}

    @app.get("/v1/jackpots/{jackpot_id:path}", response_model=Jackpot, responses=responses, dependencies=[hands],
             summary="A jackpot's fund: its balance, drops and payouts counted, the last bad beat")  # fmt: skip
    def get_jackpot(jackpot_id: JackpotPath) -> Response:
        settings = state.settings
        funds = read_funds(state.client, (settings.keys(shard) for shard in settings.shards), jackpot_id)
        if not funds:
            raise Refused(404, "unknown_jackpot", f"no configured shard holds a fund of jackpot {jackpot_id!r}")
        body = {"jackpot_id": jackpot_id, "funds": [fund_document(shard, fund) for shard, fund in funds.items()]}
        return Response(to_json(body), media_type="application/json")  # as app.json_body: read, not judged
