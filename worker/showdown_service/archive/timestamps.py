"""RFC 3161 timestamps of the signed tree heads: a timestamp authority (TSA) the room does not run says when each
head existed.

With ``SHOWDOWN_ARCHIVE_TSA_URL`` (an RFC 3161 server: the query POSTed as ``application/timestamp-query``) or
``SHOWDOWN_ARCHIVE_TSA_COMMAND`` (a command that reads the query's DER on stdin and writes the response's on
stdout, as ``openssl ts -reply -queryfile /dev/stdin ... -out /dev/stdout`` does), the archiver asks for a
timestamp of each signed tree head's bytes (the whole note, its signatures included) and keeps the authority's
response beside the head, write-once: ``checkpoints/<shard>/<epoch16>-<size>.tsr`` (DER TimeStampResp).

The query (RFC 3161 section 2.4.1) is built here: version 1, the note's SHA-256 as its message imprint, the TSA's
certificate asked for (``certReq``), no nonce (a query is the same bytes every time). A response is kept only
when its status (section 2.4.2) is granted (0) or granted with modifications (1). A token is verified, in
``showdown audit replay`` and ``showdown proof``, against the TSA's CA certificate (``SHOWDOWN_ARCHIVE_TSA_CA``)
by ``openssl ts -verify`` (the imprint, the signature, the chain and the timeStamping key usage).
"""

from __future__ import annotations

import hashlib
import shlex
import subprocess
import tempfile
from pathlib import Path

import httpx

SHA256_ALGORITHM = bytes.fromhex("300d06096086480165030402010500")
"""AlgorithmIdentifier { id-sha256 (2.16.840.1.101.3.4.2.1), NULL }, DER."""
GRANTED = (0, 1)
"""PKIStatus granted and grantedWithMods: a response that carries a token."""
STATUS_NAMES = {0: "granted", 1: "grantedWithMods", 2: "rejection", 3: "waiting", 4: "revocationWarning",
                5: "revocationNotification"}  # fmt: skip


class TimestampError(ValueError):
    """A timestamp that could not be had, or a token that does not verify: the message says which and why."""


def query(data: bytes) -> bytes:
    """The DER TimeStampReq of ``data``: version 1, its SHA-256 imprint, certReq TRUE, no nonce."""
    imprint = b"\x30" + bytes([len(SHA256_ALGORITHM) + 34]) + SHA256_ALGORITHM + b"\x04\x20"
    imprint += hashlib.sha256(data).digest()
    body = b"\x02\x01\x01" + imprint + b"\x01\x01\xff"
    return b"\x30" + bytes([len(body)]) + body


def _tlv(data: bytes, at: int) -> tuple[int, int, int]:
    """(tag, start of the value, end of the value) of the DER element at ``at``."""
    if at + 2 > len(data):
        raise TimestampError("the response ends inside an element")
    tag, length = data[at], data[at + 1]
    at += 2
    if length & 0x80:
        count = length & 0x7F
        if not 1 <= count <= 4 or at + count > len(data):
            raise TimestampError("the response has an element of an impossible length")
        length = int.from_bytes(data[at : at + count], "big")
        at += count
    if at + length > len(data):
        raise TimestampError("the response is cut short")
    return tag, at, at + length


def status(response: bytes) -> int:
    """The PKIStatus of a DER TimeStampResp (RFC 3161 section 2.4.2)."""
    tag, start, _ = _tlv(response, 0)
    if tag != 0x30:
        raise TimestampError("the response is not a TimeStampResp (a DER SEQUENCE)")
    tag, start, _ = _tlv(response, start)
    if tag != 0x30:
        raise TimestampError("the response has no PKIStatusInfo")
    tag, start, end = _tlv(response, start)
    if tag != 0x02 or end - start != 1:
        raise TimestampError("the response's PKIStatus is not a small INTEGER")
    return response[start]


def stamp(data: bytes, *, url: str | None = None, command: str | None = None, timeout_s: float = 30.0) -> bytes:
    """The TSA's response (DER) to the query of ``data``, refused unless granted (:class:`TimestampError`)."""
    request = query(data)
    if url:
        try:
            answer = httpx.post(url, content=request, headers={"Content-Type": "application/timestamp-query"},
                                timeout=timeout_s)  # fmt: skip
        except httpx.HTTPError as exc:
            raise TimestampError(f"the timestamp authority at {url} did not answer: {exc}") from exc
        if answer.status_code != 200:
            raise TimestampError(f"the timestamp authority at {url} answered HTTP {answer.status_code}")
        response = answer.content
    elif command:
        try:
            argv = shlex.split(command)  # the operator's own setting, run without a shell
            done = subprocess.run(argv, input=request, capture_output=True, timeout=timeout_s, check=False)  # noqa: S603
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise TimestampError(f"the timestamp command {command!r} failed: {exc}") from exc
        if done.returncode != 0:
            why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
            raise TimestampError(f"the timestamp command exited {done.returncode}: {why[0]}")
        response = done.stdout
    else:
        raise TimestampError("no timestamp authority: set SHOWDOWN_ARCHIVE_TSA_URL or SHOWDOWN_ARCHIVE_TSA_COMMAND")
    granted = status(response)
    if granted not in GRANTED:
        raise TimestampError(f"the timestamp authority refused: {STATUS_NAMES.get(granted, granted)}")
    return response


def verify(data: bytes, response: bytes, ca: Path) -> str:
    """Check the token of ``response`` stamps ``data``, signed by a TSA certified by ``ca`` (``openssl ts
    -verify``): returns its time (``openssl ts -reply -text``'s "Time stamp"), raises :class:`TimestampError`."""
    with tempfile.TemporaryDirectory(prefix="showdown-tsr-") as directory:
        given, token = Path(directory) / "data", Path(directory) / "token.tsr"
        given.write_bytes(data)
        token.write_bytes(response)
        check = ["openssl", "ts", "-verify", "-data", str(given), "-in", str(token), "-CAfile", str(ca)]
        text = ["openssl", "ts", "-reply", "-in", str(token), "-text"]
        try:
            done = subprocess.run(check, capture_output=True, text=True, timeout=60, check=False)  # noqa: S603
            shown = subprocess.run(text, capture_output=True, text=True, timeout=60, check=False)  # noqa: S603
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise TimestampError(f"openssl ts could not run: {exc}") from exc
    if done.returncode != 0 or "Verification: OK" not in done.stdout:
        errors = [line for line in done.stderr.splitlines() if "error:" in line]
        why = errors[-1].rsplit(":", 1)[-1] if errors else done.stdout.strip() or "failed"
        raise TimestampError(f"the timestamp does not verify: {why}")
    when = [line.split(":", 1)[1].strip() for line in shown.stdout.splitlines() if line.startswith("Time stamp:")]
    return when[0] if when else "(unknown time)"
