"""Signed checkpoints: for every archive file, the archiver signs (Ed25519) what it holds.

A checkpoint is one JSON object: ``shard``, ``first_seq``, ``last_seq``,
``last_hash`` (the chain's hash at ``last_seq``), ``file`` (its path relative
to the archive's root), ``sha256`` (of the file's bytes), ``signed_at``,
``key_id`` (the first 16 hex digits of the sha256 of the raw public key) and
``signature`` (base64 of the Ed25519 signature of the object's canonical
JSON, keys sorted, ``signature`` left out), and ``epoch`` (the chain's epoch
id) in those written since epochs. The archiver writes it into the archive
(``checkpoints/<shard>/<epoch16>-<last seq>.json``, written once) and, when
configured, appends it as one line to a second file an independent party
keeps, both before it records the file as archived: a copy that cannot be
written makes it wait and retry (:func:`append_copy`, :func:`copy_holds`),
never go on without it.

Whoever rewrites both the chain and its head in Redis and the archive's
files cannot sign new checkpoints without the private key: ``showdown audit
replay --checkpoints FILE --public-key KEY`` catches it.
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from showdown_service.storage.layout import ArchiveError


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The archiver's signing key (PEM, PKCS#8, unencrypted: the file's permissions protect it)."""
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ArchiveError(f"{path}: not an Ed25519 private key")
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    key = serialization.load_pem_public_key(path.read_bytes())
    if not isinstance(key, Ed25519PublicKey):
        raise ArchiveError(f"{path}: not an Ed25519 public key")
    return key


def new_key_pair(private_path: Path, public_path: Path) -> None:
    """Write a fresh key pair (``showdown archive keygen``): the private key with mode 0600."""
    key = Ed25519PrivateKey.generate()
    private_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    private_path.chmod(0o600)
    public_path.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def _signed_bytes(checkpoint: dict[str, Any]) -> bytes:
    return orjson.dumps({k: v for k, v in checkpoint.items() if k != "signature"}, option=orjson.OPT_SORT_KEYS)


def sign(key: Ed25519PrivateKey, fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with ``key_id`` and ``signature`` added."""
    checkpoint = {**fields, "key_id": key_id(key.public_key())}
    checkpoint["signature"] = base64.b64encode(key.sign(_signed_bytes(checkpoint))).decode()
    return checkpoint


def signature_holds(public: Ed25519PublicKey, checkpoint: dict[str, Any]) -> bool:
    try:
        public.verify(base64.b64decode(str(checkpoint.get("signature", ""))), _signed_bytes(checkpoint))
    except (InvalidSignature, ValueError):
        return False
    return True


def read_checkpoints(path: Path) -> list[tuple[int, dict[str, Any] | None, str]]:
    """``(line number, checkpoint or None, why unreadable)`` for each line of a checkpoints file."""
    found: list[tuple[int, dict[str, Any] | None, str]] = []
    for number, line in enumerate(path.read_bytes().splitlines(), 1):
        if not line.strip():
            continue
        try:
            doc = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            found.append((number, None, f"not JSON: {exc}"))
            continue
        found.append((number, doc, "") if isinstance(doc, dict) else (number, None, "not a JSON object"))
    return found


COPY_TAIL = 1 << 20
"""How much of the end of a checkpoints copy :func:`copy_holds` reads (a checkpoint line is about 500 bytes)."""


def append_copy(path: Path, line: bytes) -> None:
    """Append one checkpoint ``line`` to the copy at ``path``, fsynced; after a line an earlier failure left
    unfinished, on a line of its own."""
    with path.open("ab") as out:
        if out.tell() > 0:
            with path.open("rb") as back:
                back.seek(-1, os.SEEK_END)
                if back.read(1) != b"\n":
                    out.write(b"\n")
        out.write(line.rstrip(b"\n") + b"\n")
        out.flush()
        os.fsync(out.fileno())


def copy_holds(path: Path, file: str, sha256: str) -> bool:
    """Whether the copy at ``path`` ends with (holds among its last lines) the checkpoint of ``file`` with that
    sha256: what a restarted archiver asks before appending its newest file's checkpoint again."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - COPY_TAIL))
            tail = handle.read()
    except FileNotFoundError:
        return False
    for line in reversed(tail.splitlines()):
        try:
            doc = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(doc, dict) and doc.get("file") == file and doc.get("sha256") == sha256:
            return True
    return False
