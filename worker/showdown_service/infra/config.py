"""Worker configuration, from ``SHOWDOWN_*`` environment variables.

Every field below is one environment variable: ``batch_size`` is
``SHOWDOWN_BATCH_SIZE``. The settings table of docs/operations.md is generated from
this class when the documentation is built (scripts/docs_hooks.py).
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from redis.connection import parse_url

from showdown_messages.protocol import OPEN_TOURNAMENTS, STANDINGS, key

_SECONDS_PER_DAY = 86_400
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


def default_consumer() -> str:
    """``<host>-<pid>``: unique per process, recognisable in XINFO CONSUMERS."""
    return f"{socket.gethostname()}-{os.getpid()}"


def default_heartbeat_file() -> Path:
    """``$TMPDIR/showdown-worker.heartbeat`` (``/tmp`` without ``TMPDIR``): separate runs on one host that set their
    own ``TMPDIR`` (a test run, a user's session) never read each other's files."""
    return Path(os.environ.get("TMPDIR") or "/tmp") / "showdown-worker.heartbeat"  # noqa: S108 - see above


ARCHIVER_METRICS_PORT = 9107
"""The archiver's default /metrics port: below the workers' 9108-9123 (see metrics.PORTS_TRIED), never one of them."""


class Settings(BaseSettings):
    """Everything a worker (and the CLI around it) can be told."""

    model_config = SettingsConfigDict(env_prefix="SHOWDOWN_", extra="ignore", frozen=True)

    redis_url: str = Field(
        default="redis://127.0.0.1:6379/0",
        description="Where Redis is. rediss:// for TLS; credentials belong in the two settings below.",
    )
    redis_username: str | None = Field(default=None, description="ACL user name (e.g. worker).")
    redis_password: SecretStr | None = Field(default=None, description="ACL password. Secret: never logged.")
    redis_ca_file: Path | None = Field(default=None, description="CA bundle to verify a rediss:// server with.")
    redis_cluster: bool = Field(
        default=False,
        description="true: Redis Cluster (or Valkey cluster); redis_url names any node, the rest are discovered.",
    )
    wait_replicas: int = Field(
        default=0,
        ge=0,
        le=16,
        description="After each commit (and publish), WAIT until this many replicas have it; 0: no WAIT.",
    )
    wait_timeout_ms: int = Field(
        default=1000, ge=1, le=60_000, description="Longest WAIT (ms) for wait_replicas; then a warning, not an error."
    )
    wait_aof: bool = Field(
        default=False,
        description="true: after each publish (`showdown publish`, a requeue), WAITAOF until Redis has fsynced it "
        "to its AOF (Redis 7.2+ or Valkey; Redis 7.0 refuses it: unknown command).",
    )
    shards: Annotated[tuple[str, ...], NoDecode] = Field(
        default=("default",),
        description="Shards this worker serves, comma-separated. Each shard is one hash tag: showdown:{<shard>}:*.",
    )
    key_prefix: str = Field(default="showdown", description="First part of every key: <prefix>:{<shard>}:<name>.")
    events_name: str = Field(default="events", description="Input stream name within a shard.")
    inbox_name: str = Field(
        default="inbox", description="The producers' list within a shard (RPUSH only); workers move it into events."
    )
    results_name: str = Field(default="results", description="Results stream name within a shard.")
    audit_name: str = Field(default="audit", description="Audit stream name within a shard.")
    dead_name: str = Field(default="dead", description="Dead-letter stream name within a shard.")
    group: str = Field(default="adjudicators", description="Consumer group shared by every worker of a shard.")
    consumer: str = Field(default_factory=default_consumer, description="This worker's name in the group.")
    batch_size: int = Field(default=100, ge=1, le=10_000, description="Entries read and committed at once.")
    block_ms: int = Field(default=1000, ge=1, le=60_000, description="How long a read waits for new entries (ms).")
    claim_idle_ms: int = Field(
        default=30_000, ge=100, description="Entries pending this long (ms) are taken over from their consumer."
    )
    max_deliveries: int = Field(
        default=5,
        ge=1,
        description="Times settling an entry may raise before it is dead-lettered as poison "
        "(refused writes and outages never count).",
    )
    dedupe_ttl_s: int = Field(
        default=7 * _SECONDS_PER_DAY, ge=1, description="How long (s) a settled hand_id is remembered against re-sends."
    )
    max_payload_bytes: int = Field(default=64 * 1024, ge=256, description="Larger events are refused unread.")
    dead_raw_max_bytes: int = Field(
        default=64 * 1024, ge=64, description="A dead letter keeps this much of the original payload."
    )
    results_maxlen: int = Field(default=1_000_000, ge=0, description="Results kept (approximate); 0 keeps all.")
    audit_maxlen: int = Field(default=0, ge=0, description="Audit records kept (approximate); 0 (default) keeps all.")
    dead_maxlen: int = Field(default=0, ge=0, description="Dead letters kept (approximate); 0 keeps all.")
    trim_interval_s: float = Field(
        default=10.0, gt=0, description="How often (s) the events stream is trimmed below its oldest pending entry."
    )
    metrics_port: int = Field(
        default=9108, ge=0, le=65535, description="Prometheus /metrics port (process i of --processes adds i); 0: off."
    )
    heartbeat_file: Path = Field(
        default_factory=default_heartbeat_file,
        description="The worker's heartbeat, touched every loop; `showdown health` checks its age (and that of the "
        "archiver's and the API's, beside it). Default: in TMPDIR (else /tmp).",
    )
    archiver_heartbeat_file: Path | None = Field(
        default=None,
        description="The archiver's own heartbeat file (locked: one archiver a file); none: SHOWDOWN_HEARTBEAT_FILE "
        "with .archiver added.",
    )
    api_heartbeat_file: Path | None = Field(
        default=None,
        description="The read API's own heartbeat file (locked: one `showdown api` a file); none: "
        "SHOWDOWN_HEARTBEAT_FILE with .api added.",
    )
    archiver_metrics_port: int = Field(
        default=ARCHIVER_METRICS_PORT,
        ge=0,
        le=65535,
        description="The archiver's Prometheus /metrics port (never the workers' SHOWDOWN_METRICS_PORT); 0: off.",
    )
    health_max_age_s: float = Field(default=30.0, gt=0, description="Oldest heartbeat `showdown health` accepts (s).")
    backoff_max_s: float = Field(
        default=5.0, gt=0, description="Longest wait (s) between attempts while Redis is down."
    )
    log_level: str = Field(default="info", description="debug, info, warning, error or critical.")
    rake_schedules_dir: Path | None = Field(
        default=None,
        description="A directory of rake schedule files (*.json, docs/rake.md) read after the shipped ones: the "
        "schedules an event's rake_schedule may name. A file that is no schedule stops the worker, naming its line.",
    )
    archive_url: str = Field(
        default="archive",
        description="Where `showdown archiver` writes Parquet files: a local directory, or s3://bucket/prefix. A "
        "worker that finds its chain empty restores from it (docs/durability.md); none there: it does not.",
    )
    archive_keep: int = Field(
        default=100_000,
        ge=0,
        description="Once archived, each shard's results, audit, dead-letter and standings streams keep about this "
        "many entries (the archiver trims them); without an archiver nothing is trimmed by it.",
    )
    archive_file_rows: int = Field(
        default=100_000, ge=1, le=10_000_000, description="Most entries in one archive file."
    )
    archive_interval_s: float = Field(
        default=60.0, gt=0, description="Longest time (s) an archived entry waits for its file to be written."
    )
    archive_lock_ttl_s: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="The archiver's lease on its shards: a killed archiver's shards are taken over this long after.",
    )
    archive_s3_endpoint: str | None = Field(
        default=None, description="S3-compatible endpoint (http://host:port) for an s3:// archive; none: AWS."
    )
    archive_s3_region: str | None = Field(default=None, description="S3 region of an s3:// archive.")
    archive_s3_access_key: str | None = Field(default=None, description="S3 access key id (none: AWS's defaults).")
    archive_s3_secret_key: SecretStr | None = Field(default=None, description="S3 secret key. Secret: never logged.")
    archive_retention_days: int = Field(
        default=0,
        ge=0,
        le=36_500,
        description="S3 Object Lock: every archive file and checkpoint is written locked for this many days (the "
        "bucket must have Object Lock enabled); 0: none. A local archive cannot be locked.",
    )
    archive_retention_mode: Literal["compliance", "governance"] = Field(
        default="compliance",
        description="Object Lock mode of SHOWDOWN_ARCHIVE_RETENTION_DAYS: compliance (no one may delete or overwrite "
        "before the date) or governance (those granted s3:BypassGovernanceRetention may).",
    )
    archive_signing_key: Path | None = Field(
        default=None,
        description="Ed25519 private key (PEM) the archiver signs each file's checkpoint with; none: unsigned.",
    )
    archive_checkpoints_copy: Path | None = Field(
        default=None,
        description="A second place (a file, appended to) for every signed checkpoint: kept by an independent party.",
    )
    archive_log_name: str = Field(
        default="showdown",
        pattern=r"^[^\s+]+$",
        description="The room's name in its Merkle log (rooms.example/showdown): the signed tree heads' key name and "
        "the start of their origin line, <name>/<shard>/<epoch16>; no spaces and no '+'.",
    )
    archive_tsa_url: str | None = Field(
        default=None,
        description="An RFC 3161 timestamp authority (http(s) URL) that timestamps each signed tree head; the token "
        "is kept beside it (checkpoints/<shard>/<epoch16>-<size>.tsr). None: no timestamps.",
    )
    archive_tsa_command: str | None = Field(
        default=None,
        description="Instead of SHOWDOWN_ARCHIVE_TSA_URL: a command that reads an RFC 3161 query (DER) on stdin and "
        "writes the authority's response on stdout (openssl ts -reply ... -queryfile /dev/stdin -out /dev/stdout).",
    )
    archive_tsa_ca: Path | None = Field(
        default=None,
        description="The timestamp authority's CA certificate (PEM): showdown proof and audit replay verify each "
        "timestamp token with it (openssl ts -verify). None: tokens are handed out, not verified.",
    )

    @field_validator("redis_url")
    @classmethod
    def _readable_url(cls, value: str) -> str:
        try:  # redis-py's own reading, now rather than at the first connection
            parse_url(value)  # type: ignore[no-untyped-call]
        except ValueError:  # its message may quote a part of the URL: a misplaced password
            raise ValueError(
                "not a Redis URL: redis://host[:port][/db], rediss://... for TLS, or unix:///path/to/socket"
            ) from None
        return value

    @field_validator("shards", mode="before")
    @classmethod
    def _split_shards(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("shards")
    @classmethod
    def _plain_shard_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("at least one shard is needed")
        for shard in value:
            if not shard or any(c in shard for c in "{}: \t\n"):
                raise ValueError(f"shard {shard!r} must be a plain name (no braces, colons or spaces)")
        return value

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        if value.lower() not in LOG_LEVELS:
            raise ValueError(f"log level {value!r} is not one of {', '.join(LOG_LEVELS)}")
        return value.lower()

    @property
    def archiver_heartbeat(self) -> Path:
        """The archiver's heartbeat file in effect: ``archiver_heartbeat_file``, else the worker's + ``.archiver``."""
        return self.archiver_heartbeat_file or _beside(self.heartbeat_file, "archiver")

    @property
    def api_heartbeat(self) -> Path:
        """The read API's heartbeat file in effect: ``api_heartbeat_file``, else the worker's with ``.api``."""
        return self.api_heartbeat_file or _beside(self.heartbeat_file, "api")

    def keys(self, shard: str) -> ShardKeys:
        """The Redis keys of one shard."""
        return ShardKeys.of(self, shard)


def _beside(path: Path, suffix: str) -> Path:
    return path.with_name(f"{path.name}.{suffix}")


def settings_problems(exc: ValidationError) -> list[str]:
    """What is wrong with the settings, one line per variable (never its value: it may be a password)."""
    return [
        f"SHOWDOWN_{str(error['loc'][0]).upper() if error['loc'] else '*'}: {error['msg']}"
        for error in exc.errors(include_url=False, include_input=False)
    ]


def settings_table(*, html: bool = True) -> str:
    """Every setting as a markdown table row: variable, default, meaning (docs/operations.md's settings table).
    ``html``: the meanings' placeholders (``<shard>``) escaped, as a web page needs them (not a terminal)."""
    rows = ["| variable | default | what it sets |", "|---|---|---|"]
    for name, info in Settings.model_fields.items():
        default = _default_text(name)
        shown = "(none)" if default is None else f"`{default}`"
        meaning = info.description or ""
        if html:
            meaning = meaning.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        rows.append(f"| `SHOWDOWN_{name.upper()}` | {shown} | {meaning} |")
    return "\n".join(rows)


def settings_in_effect(settings: Settings) -> str:
    """Every setting as ``SHOWDOWN_<NAME>=<value in effect>``, one a line, each with where its value comes from
    (the environment, or the default) and what it sets: what ``showdown settings`` prints. Secrets are masked."""
    lines = []
    for name, info in Settings.model_fields.items():
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            shown = "********"
        elif isinstance(value, tuple):
            shown = ",".join(value)
        else:
            shown = "" if value is None else str(value)
        source = "set" if name in settings.model_fields_set else "default"
        lines.append(f"SHOWDOWN_{name.upper()}={shown}  # {source}: {info.description or ''}")
    return "\n".join(lines)


def _default_text(name: str) -> str | None:
    info = Settings.model_fields[name]
    factory_texts = {"consumer": "<host>-<pid>", "heartbeat_file": "$TMPDIR/showdown-worker.heartbeat"}
    default = factory_texts[name] if name in factory_texts else info.get_default(call_default_factory=False)
    if isinstance(default, tuple):
        return ",".join(default)
    return None if default is None else str(default)


@dataclass(frozen=True, slots=True)
class ShardKeys:
    """Every key of one shard. They share the hash tag ``{<shard>}``, so one
    Lua script may touch them all, on Redis Cluster too."""

    shard: str
    events: str
    results: str
    audit: str
    dead: str
    audit_head: str
    """``<seq>:<sha256>`` of the newest audit record: the chain's head."""
    seen_prefix: str
    """``seen:<hand_id>`` keys hold the digest of a settled event (TTL dedupe_ttl_s)."""
    failures_prefix: str
    """``failures:<entry id>`` keys count the times settling that entry raised (written only then; with a TTL)."""
    standings: str = ""
    """The standings stream: one ``placement`` per tournament entry that finishes."""
    tournament_prefix: str = ""
    """``tournament:<tournament id>`` hashes hold each tournament's ledger."""
    tournaments_open: str = ""
    """``tournaments:open``: the set of the shard's tournaments not finished (the commit script SADDs a ledger it
    writes while open, SREMs it once its winner is placed)."""
    inbox: str = ""
    """The producers' list (``RPUSH`` only): the workers move it into ``events`` (``worker.ingress``)."""
    archive: str = ""
    """The archiver's progress (a hash: ``seq``, ``hash``, ``audit_id``, ``events_floor``, ...) and, beside it,
    ``archive:lock`` (the one archiver of the shard)."""
    audit_epoch: str = ""
    """The chain's epoch id: the ``hash`` of its first record (seq 1), written by the commit script with that
    record (:func:`showdown_service.decision.audit.read_epoch`)."""
    audit_reset: str = ""
    """``audit:reset``: a hash the worker writes when it finds the chain empty while the archive holds a chain of
    the shard (Redis lost its data): what the archive held (``archived_epoch``, ``archived_seq``,
    ``archived_hash``), what it restored (``restored_at``, ``hands``, ``tournaments``) and, written by the commit
    script with the new chain's first record, ``epoch`` and ``began_at`` (:mod:`showdown_service.worker.restore`)."""
    tournaments_lost: str = ""
    """``tournaments:lost``: the set of the shard's tournaments the archive knows whose ledgers Redis lost: their
    entries are refused (``ledger_lost``) until ``showdown tournament restore`` rebuilds the ledger."""
    jackpot_prefix: str = ""
    """``jackpot:<jackpot id>`` hashes hold each jackpot's fund (:mod:`showdown_service.worker.funds`)."""

    @classmethod
    def of(cls, settings: Settings, shard: str) -> ShardKeys:
        def named(name: str) -> str:
            return key(shard, name, prefix=settings.key_prefix)

        return cls(
            shard=shard,
            events=named(settings.events_name),
            results=named(settings.results_name),
            audit=named(settings.audit_name),
            dead=named(settings.dead_name),
            audit_head=named(f"{settings.audit_name}:head"),
            seen_prefix=named("seen:"),
            failures_prefix=named("failures:"),
            standings=named(STANDINGS),
            tournament_prefix=named("tournament:"),
            tournaments_open=named(OPEN_TOURNAMENTS),
            inbox=named(settings.inbox_name),
            archive=named("archive"),
            audit_epoch=named(f"{settings.audit_name}:epoch"),
            audit_reset=named(f"{settings.audit_name}:reset"),
            tournaments_lost=named("tournaments:lost"),
            jackpot_prefix=named("jackpot:"),
        )

    def seen(self, hand_id: str) -> str:
        return self.seen_prefix + hand_id

    def failures(self, entry_id: str) -> str:
        return self.failures_prefix + entry_id

    def tournament(self, tournament_id: str) -> str:
        return self.tournament_prefix + tournament_id

    def jackpot(self, jackpot_id: str) -> str:
        return self.jackpot_prefix + jackpot_id
