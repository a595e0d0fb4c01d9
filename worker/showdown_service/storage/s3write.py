"""Writing an ``s3://`` archive once: :class:`S3Writer` (a conditional ``PutObject``, checked before and after) and
the S3 Object Lock retention it writes with (:class:`Retention`). The layout (:mod:`.layout`) reads through
pyarrow and writes through this."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from showdown_service.infra.config import Settings
from showdown_service.storage.errors import ArchiveError, NameTaken


def s3_login(settings: Settings, names: tuple[str, str, str]) -> dict[str, Any]:
    """The region and the credentials the settings give an S3 client (each when set), under that client's own
    ``names`` for the region, the access key and the secret key: pyarrow's ``S3FileSystem`` (the archive's reads)
    and botocore's client (its writes) read the same settings."""
    region, access_key, secret_key = names
    options: dict[str, Any] = {}
    if settings.archive_s3_region:
        options[region] = settings.archive_s3_region
    if settings.archive_s3_access_key and settings.archive_s3_secret_key:
        options[access_key] = settings.archive_s3_access_key
        options[secret_key] = settings.archive_s3_secret_key.get_secret_value()
    return options


@dataclass(frozen=True, slots=True)
class Retention:
    """S3 Object Lock: every object is written locked until ``days`` after it is written, in ``mode``."""

    days: int
    mode: str
    """``COMPLIANCE`` (no one, root included, may delete or overwrite it before the date) or ``GOVERNANCE``
    (only a user granted ``s3:BypassGovernanceRetention``)."""


class S3Writer:
    """Writes objects once: ``PutObject`` with ``If-None-Match: *`` (refused with 412 where the name exists), a
    ``HEAD`` before it for stores that ignore the condition, and one after, checking the object is these bytes.
    pyarrow's S3 filesystem cannot send the condition, so this writes through botocore (the reads stay pyarrow's)."""

    def __init__(self, settings: Settings | None, retention: Retention | None) -> None:
        self.settings = settings
        self.retention = retention
        self._client: Any = None

    @property
    def client(self) -> Any:
        """botocore's S3 client, made on the first write (readers never need it)."""
        if self._client is None:
            import botocore.session  # noqa: PLC0415 - only writing an s3:// archive needs it
            from botocore.config import Config  # noqa: PLC0415

            options: dict[str, Any] = {}
            config = Config(retries={"max_attempts": 3, "mode": "standard"})
            settings = self.settings
            if settings is not None:
                if settings.archive_s3_endpoint:
                    options["endpoint_url"] = settings.archive_s3_endpoint
                    config = config.merge(Config(s3={"addressing_style": "path"}))
                options |= s3_login(settings, ("region_name", "aws_access_key_id", "aws_secret_access_key"))
            self._client = botocore.session.get_session().create_client("s3", config=config, **options)
        return self._client

    def put(self, path: str, data: bytes) -> None:
        from botocore.exceptions import BotoCoreError, ClientError  # noqa: PLC0415

        bucket, _, key = path.partition("/")
        where = f"s3://{path}"
        extra: dict[str, Any] = {}
        if self.retention is not None:
            until = datetime.now(UTC) + timedelta(days=self.retention.days)
            extra.update(ObjectLockMode=self.retention.mode, ObjectLockRetainUntilDate=until)
        try:
            if self._exists(bucket, key):
                raise NameTaken(f"{where} exists already: the archive never writes over a name")
            self.client.put_object(Bucket=bucket, Key=key, Body=data, IfNoneMatch="*", **extra)
            head = self.client.head_object(Bucket=bucket, Key=key)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if error.get("Code") == "PreconditionFailed" or status == 412:
                raise NameTaken(f"{where} exists already (the store refused the write: 412)") from exc
            raise ArchiveError(f"{where}: cannot be written: {error.get('Code')}: {error.get('Message')}") from exc
        except BotoCoreError as exc:
            raise ArchiveError(f"{where}: cannot be written: {exc}") from exc
        etag = str(head.get("ETag", "")).strip('"')
        if int(head.get("ContentLength", -1)) != len(data) or (
            re.fullmatch(r"[0-9a-f]{32}", etag) and etag != hashlib.md5(data, usedforsecurity=False).hexdigest()
        ):
            raise NameTaken(f"{where} is not the object just written (another writer's?): the archive stops")

    def _exists(self, bucket: str, key: str) -> bool:
        from botocore.exceptions import ClientError  # noqa: PLC0415

        try:
            self.client.head_object(Bucket=bucket, Key=key)
        except ClientError as exc:
            if exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") == 404:
                return False
            raise
        return True
