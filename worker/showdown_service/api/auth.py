"""Bearer tokens with scopes, compared by their SHA-256 in constant time; a request limit per token."""

from __future__ import annotations

import hashlib
import hmac
import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from showdown_service.api.settings import Token


class Refused(Exception):
    """A request the API will not serve: its HTTP status, an error code and a sentence."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def token_digest(token: str) -> str:
    """What ``SHOWDOWN_API_TOKENS`` holds for a token: the hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Caller:
    name: str
    scopes: frozenset[str]


class Tokens:
    """The configured tokens. :meth:`caller` finds whose a bearer token is: every configured digest is compared
    (``hmac.compare_digest``), so the time taken says nothing about which digest, or how much of one, matched."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self._tokens = tuple((t.sha256.encode(), Caller(t.name, frozenset(t.scopes))) for t in tokens)

    def caller(self, authorization: str | None) -> Caller:
        """The caller an ``Authorization`` header names; :class:`Refused` (401) without a token we know."""
        if not authorization:
            raise Refused(401, "unauthenticated", "send 'Authorization: Bearer <token>'", _challenge())
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused(401, "unauthenticated", "the Authorization header must be 'Bearer <token>'", _challenge())
        presented = token_digest(token.strip()).encode()
        found: Caller | None = None
        for digest, caller in self._tokens:  # all of them, always
            if hmac.compare_digest(presented, digest):
                found = caller
        if found is None:
            raise Refused(401, "invalid_token", "the bearer token is not one this API knows", _challenge())
        return found


def require(caller: Caller, scope: str) -> None:
    """:class:`Refused` (403) unless ``caller`` holds ``scope``."""
    if scope not in caller.scopes:
        raise Refused(403, "insufficient_scope", f"token {caller.name!r} lacks the scope {scope!r}")


def _challenge() -> dict[str, str]:
    return {"WWW-Authenticate": 'Bearer realm="showdown"'}


class RateLimit:
    """A token bucket per key (a token's name, or an address): ``rate`` a second, ``burst`` at once; 429 beyond.

    Buckets of keys idle long enough to be full again are dropped when the map grows past ``max_keys``.
    """

    def __init__(self, rate: float, burst: int, *, max_keys: int = 10_000) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> None:
        now = time.monotonic()
        with self._lock:
            level, at = self._buckets.get(key, (self.burst, now))
            level = min(self.burst, level + (now - at) * self.rate)
            if level < 1:
                wait = (1 - level) / self.rate
                raise Refused(
                    429, "too_many_requests", f"over {self.rate:g} requests a second",
                    {"Retry-After": str(max(1, math.ceil(wait)))},
                )  # fmt: skip
            self._buckets[key] = (level - 1, now)
            if len(self._buckets) > self.max_keys:
                full = self.burst / self.rate
                self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < full}
