"""A Redis client configured the way the worker needs it."""

from __future__ import annotations

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from showdown_service.config import Settings


def connect(settings: Settings, *, name: str | None = None) -> redis.Redis:
    """A client for ``settings.redis_url``: RESP2 (XREADGROUP replies stay lists), hiredis when installed.

    Reads block for up to ``block_ms``, so the socket timeout sits above it.
    Transient connection errors are retried briefly here; the worker loop
    adds its own bounded backoff on top.

    No ``CLIENT SETINFO`` on connect (redis-py sends it by default): each ACL
    user of deploy/redis/users.acl is granted exactly the commands its job
    needs, and Redis 7.0 does not know the command, so no ACL file that loads
    there can grant it; on Redis 7.2+ (the 7.4 we deploy, Valkey) every
    connection would leave a denial in the ACL log.
    """
    password = settings.redis_password.get_secret_value() if settings.redis_password else None
    extra: dict[str, object] = {}
    if settings.redis_ca_file is not None:
        extra["ssl_ca_certs"] = str(settings.redis_ca_file)
    return redis.Redis.from_url(
        settings.redis_url,
        protocol=2,
        username=settings.redis_username,
        password=password,
        socket_timeout=settings.block_ms / 1000 + 10,
        socket_connect_timeout=5,
        health_check_interval=30,
        client_name=name,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 2),
        retry_on_error=[redis.ConnectionError, redis.TimeoutError],
        driver_info=None,  # no CLIENT SETINFO (see above)
        **extra,
    )
