"""The read API's settings, from ``SHOWDOWN_API_*`` environment variables (beside the worker's ``SHOWDOWN_*``)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

SCOPES = ("hands:read", "tournaments:read", "dead-letters:read")
"""Every scope a token may hold: ``hands:read`` (hands and results), ``tournaments:read``, ``dead-letters:read``."""


class Token(BaseModel):
    """One bearer token, as configured: its name, the SHA-256 of the token (hex), its scopes. Never the token."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    sha256: str
    scopes: tuple[str, ...]

    @field_validator("sha256")
    @classmethod
    def _hex_digest(cls, value: str) -> str:
        if not re.fullmatch(r"[0-9a-f]{64}", value.lower()):
            raise ValueError("sha256 must be the 64 hex digits of the token's SHA-256 (never the token itself)")
        return value.lower()

    @field_validator("scopes")
    @classmethod
    def _known_scopes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [s for s in value if s not in SCOPES]
        if unknown:
            raise ValueError(f"unknown scope {unknown[0]!r}: the scopes are {', '.join(SCOPES)}")
        return value


TOKENS = TypeAdapter(tuple[Token, ...])


class ApiSettings(BaseSettings):
    """What ``showdown api`` can be told (the Redis settings are the worker's: ``SHOWDOWN_REDIS_URL`` ...)."""

    model_config = SettingsConfigDict(env_prefix="SHOWDOWN_API_", extra="ignore", frozen=True)

    tokens: Annotated[tuple[Token, ...], NoDecode] = Field(
        default=(),
        description='JSON list of {"name", "sha256", "scopes"}: sha256 is the hex SHA-256 of a bearer token. '
        "No tokens: every /v1 request is refused (401).",
    )
    rate_per_s: float = Field(
        default=1000.0, gt=0, description="Requests a second each token (or, without one, each address) may make."
    )
    burst: int = Field(default=2000, ge=1, description="Requests a token may make at once above rate_per_s.")
    max_streams: int = Field(
        default=64, ge=1, description="Event streams token holders (/v1) may have open at once; more: 429."
    )
    floor_max_streams: int = Field(
        default=32, ge=1, description="Event streams the floor pages (no token) may have open at once; more: 429."
    )
    floor_streams_per_address: int = Field(
        default=4, ge=1, description="Floor event streams one client address may have open at once; more: 429."
    )
    page_max: int = Field(
        default=500, ge=1, le=10_000, description="Most items a page of results or dead letters holds."
    )
    scan_max: int = Field(
        default=20_000, ge=100, description="Most stream entries one page request reads (a page may end early)."
    )
    floor: bool = Field(
        default=True, description="Serve the floor pages (/floor/<tournament id>), which need no token."
    )
    floor_currency: str | None = Field(
        default=None,
        pattern=r"^[A-Z]{3}$",
        description="The prize currency's ISO 4217 code (EUR, USD, ...): the floor pages show amounts with its sign "
        "and its minor unit (the ledger counts the smallest unit). Unset: amounts as hundredths, no sign.",
    )
    poll_s: float = Field(default=0.2, gt=0, le=5, description="How often (s) an event stream looks for news.")
    archive_rate_per_s: float = Field(
        default=10.0, gt=0, description="Archive lookups (hands Redis does not know) a second each token may cause."
    )
    archive_burst: int = Field(default=20, ge=1, description="Archive lookups a token may cause at once.")
    archive_concurrency: int = Field(
        default=2, ge=1, description="Archive lookups running at once, all tokens together; more: 429."
    )
    unknown_ttl_s: float = Field(
        default=2.0,
        ge=0,
        le=60,
        description="How long (s) a hand neither Redis nor the archive holds is answered unknown without asking "
        "the archive again (Redis is always asked).",
    )
    head_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="How long (s) a request's head (request line and headers) may take to arrive; then the "
        "connection is closed.",
    )

    @field_validator("tokens", mode="before")
    @classmethod
    def _parse_tokens(cls, value: object) -> object:
        if isinstance(value, str | bytes):
            return TOKENS.validate_json(value or "[]")
        return value
