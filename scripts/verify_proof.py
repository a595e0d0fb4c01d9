#!/usr/bin/env python3
"""Check a showdown proof with nothing of showdown's: Python's standard library and the ``cryptography`` package.

    python3 verify_proof.py inclusion PROOF.json --key VERIFIER_KEY
    python3 verify_proof.py consistency PROOF.json --key VERIFIER_KEY
    python3 verify_proof.py epochs PROOF.json --key VERIFIER_KEY   (across a chain's restart: an epoch boundary)
    python3 verify_proof.py note NOTE_FILE --key VERIFIER_KEY

``VERIFIER_KEY`` is the room's key as ``name+keyid+base64`` (c2sp.org/signed-note); give ``--key`` again for a
witness's key: every known key's signature must hold, and at least one must be there. Exit status 0 and
``OK ...`` when the proof holds, 1 and ``FAILED: ...`` (the reason) when it does not. docs/verify.md states
every format; this file implements them from the standards alone:

- RFC 6962 section 2.1 hashing: leaf SHA-256(0x00 || leaf), node SHA-256(0x01 || left || right);
- RFC 9162 sections 2.1.3.2 and 2.1.4.2: verifying an inclusion and a consistency proof;
- c2sp.org/signed-note (Ed25519) and c2sp.org/tlog-checkpoint: the signed tree head.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


class VerifyError(Exception):
    """The proof, the note or a key does not hold; the message says why."""


def b64(text: str, what: str) -> bytes:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise VerifyError(f"{what} is not base64") from exc
    if base64.b64encode(raw).decode() != text:
        raise VerifyError(f"{what} is not canonical base64")
    return raw


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def verify_inclusion(index: int, size: int, leaf: bytes, path: list[bytes], root: bytes) -> None:
    """RFC 9162 section 2.1.3.2, step by step (``leaf`` is the leaf hash)."""
    if any(len(p) != 32 for p in path) or len(leaf) != 32 or len(root) != 32:
        raise VerifyError("every hash is 32 bytes")
    if not 0 <= index < size:
        raise VerifyError(f"leaf index {index} is not below the tree size {size}")
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            raise VerifyError("the inclusion path is too long")
        if fn % 2 == 1 or fn == sn:
            r = node_hash(p, r)
            while fn != 0 and fn % 2 == 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise VerifyError("the inclusion path is too short")
    if r != root:
        raise VerifyError("the inclusion path does not lead to the checkpoint's root hash")


def verify_consistency(size1: int, size2: int, path: list[bytes], root1: bytes, root2: bytes) -> None:
    """RFC 9162 section 2.1.4.2, step by step (with its edge cases: equal sizes, the empty first tree)."""
    if any(len(p) != 32 for p in path) or len(root1) != 32 or len(root2) != 32:
        raise VerifyError("every hash is 32 bytes")
    if not 0 <= size1 <= size2:
        raise VerifyError(f"a tree of {size1} leaves is not a prefix of one of {size2}")
    if size1 in (0, size2):
        if path:
            raise VerifyError("the consistency path should be empty for these sizes")
        if size1 == size2 and root1 != root2:
            raise VerifyError("two different roots for one tree size: a fork")
        return
    if not path:
        raise VerifyError("the consistency path is empty")
    path = ([root1] if size1 & (size1 - 1) == 0 else []) + path
    fn, sn = size1 - 1, size2 - 1
    while fn % 2 == 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise VerifyError("the consistency path is too long")
        if fn % 2 == 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while fn != 0 and fn % 2 == 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise VerifyError("the consistency path is too short")
    if fr != root1 or sr != root2:
        raise VerifyError("the consistency path does not join the two checkpoints' root hashes")


def parse_key(vkey: str) -> tuple[str, int, Ed25519PublicKey]:
    """``name+keyid+base64(0x01 || key)``: the name, the key ID (checked) and the Ed25519 public key."""
    parts = vkey.split("+", 2)
    if len(parts) != 3 or not parts[0] or len(parts[1]) != 8 or parts[1].strip("0123456789abcdef"):
        raise VerifyError(f"a verifier key is name+keyid+base64, got {vkey!r}")
    name, keyid_hex, material = parts
    raw = b64(material, "the verifier key")
    if len(raw) != 33 or raw[0] != 1:
        raise VerifyError("the verifier key is not an Ed25519 key (0x01 and 32 bytes)")
    keyid = hashlib.sha256(name.encode() + b"\n" + raw).digest()[:4]
    if keyid.hex() != keyid_hex:
        raise VerifyError(f"the verifier key's ID {keyid_hex} is not SHA-256(name, newline, key)'s first 4 bytes")
    return name, int(keyid_hex, 16), Ed25519PublicKey.from_public_bytes(raw[1:])


def open_note(note: str, vkeys: list[str]) -> str:
    """The text of a signed note, once every signature of a known key verifies (and one at least does)."""
    if any(c < " " and c != "\n" for c in note):
        raise VerifyError("a signed note holds no control character but newline")
    cut = note.rfind("\n\n")
    if cut < 0 or not note.endswith("\n"):
        raise VerifyError("a signed note is text, a blank line, signature lines")
    text, lines = note[: cut + 1], note[cut + 2 : -1].split("\n")
    if len(lines) > 100:
        raise VerifyError("more than 100 signature lines")
    keys = {(name, keyid): key for name, keyid, key in map(parse_key, vkeys)}
    verified = 0
    for line in lines:
        words = line.split(" ")
        if len(words) != 3 or words[0] != "\u2014":
            raise VerifyError(f"not a signature line: {line!r}")
        blob = b64(words[2], "a signature")
        if len(blob) < 5:
            raise VerifyError("a signature is a 4-byte key ID and the signature")
        key = keys.get((words[1], int.from_bytes(blob[:4], "big")))
        if key is None:
            continue  # an unknown key's signature: ignored, as c2sp.org/signed-note says
        try:
            key.verify(blob[4:], text.encode())
        except InvalidSignature as exc:
            raise VerifyError(f"the signature of {words[1]} does not hold") from exc
        verified += 1
    if not verified:
        raise VerifyError("no signature of a given key in the note")
    return text


def parse_checkpoint(text: str) -> tuple[str, int, bytes]:
    """c2sp.org/tlog-checkpoint: the origin, the tree size and the root hash."""
    lines = text[:-1].split("\n")
    if len(lines) < 3 or not all(lines):
        raise VerifyError("a checkpoint is origin, size, root hash (and extension lines), none empty")
    size = lines[1]
    if not size.isascii() or not size.isdigit() or (size != "0" and size.startswith("0")):
        raise VerifyError(f"the tree size {size!r} is not a decimal without leading zeros")
    root = b64(lines[2], "the root hash")
    if len(root) != 32:
        raise VerifyError("the root hash is not 32 bytes")
    return lines[0], int(size), root


def _int(proof: dict[str, Any], field: str) -> int:
    value = proof.get(field)
    if not isinstance(value, int) or isinstance(value, bool):
        raise VerifyError(f"the proof's {field} is not an integer")
    return value


def _path(proof: dict[str, Any], field: str) -> list[bytes]:
    value = proof.get(field)
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise VerifyError(f"the proof's {field} is not a list of base64 hashes")
    return [b64(p, f"an element of {field}") for p in value]


def _str(proof: dict[str, Any], field: str) -> str:
    value = proof.get(field)
    if not isinstance(value, str):
        raise VerifyError(f"the proof's {field} is not a string")
    return value


def check_inclusion(proof: dict[str, Any], vkeys: list[str]) -> str:
    """An inclusion proof: the leaf (the audit record's text) is at its index in the signed tree."""
    origin, size, root = parse_checkpoint(open_note(_str(proof, "checkpoint"), vkeys))
    index, tree_size = _int(proof, "leaf_index"), _int(proof, "tree_size")
    if tree_size != size:
        raise VerifyError(f"the proof is for a tree of {tree_size} leaves, the checkpoint of {size}")
    leaf = _str(proof, "leaf").encode("utf-8")
    verify_inclusion(index, size, leaf_hash(leaf), _path(proof, "inclusion_path"), root)
    return f"OK leaf {index} of {size} in {origin}"


def check_consistency(proof: dict[str, Any], vkeys: list[str]) -> str:
    """A consistency proof: the first signed tree is a prefix of the second."""
    origin1, size1, root1 = parse_checkpoint(open_note(_str(proof, "checkpoint1"), vkeys))
    origin2, size2, root2 = parse_checkpoint(open_note(_str(proof, "checkpoint2"), vkeys))
    if origin1 != origin2:
        raise VerifyError(f"two logs: {origin1} and {origin2}")
    if (_int(proof, "size1"), _int(proof, "size2")) != (size1, size2):
        raise VerifyError("the proof's sizes are not the checkpoints' sizes")
    verify_consistency(size1, size2, _path(proof, "consistency_path"), root1, root2)
    return f"OK tree {size1} is a prefix of tree {size2} in {origin1}"


def check_epochs(proof: dict[str, Any], vkeys: list[str]) -> str:
    """Across two chains of a shard: the first head is a prefix of its chain's last head, which the room's signed
    epoch boundary names (origin, size, root) as followed by the second head's chain (origin)."""
    inner = proof.get("consistency")
    if not isinstance(inner, dict):
        raise VerifyError("the proof's consistency is not a JSON object")
    check_consistency(inner, vkeys)
    origin1, last, root = parse_checkpoint(open_note(_str(inner, "checkpoint2"), vkeys))
    lines = open_note(_str(proof, "boundary"), vkeys).split("\n")
    if len(lines) != 6 or lines[5] or not lines[0].endswith(" epoch boundary"):
        raise VerifyError("the boundary is not an epoch boundary's five lines")
    if (lines[1], lines[2], lines[3]) != (origin1, str(last), base64.b64encode(root).decode()):
        raise VerifyError(f"the boundary names another tree than {origin1}'s head of size {last}")
    origin2, size2, _ = parse_checkpoint(open_note(_str(proof, "checkpoint2"), vkeys))
    if origin2 != lines[4]:
        raise VerifyError(f"the boundary is followed by {lines[4]}, the second head is of {origin2}")
    size1 = _int(inner, "size1")
    return f"OK tree {size1} is a prefix of tree {last} in {origin1}, followed by {origin2} (tree {size2})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["inclusion", "consistency", "epochs", "note"])
    parser.add_argument("file", type=Path)
    parser.add_argument("--key", action="append", required=True, help="a verifier key, name+keyid+base64")
    args = parser.parse_args(argv)
    try:
        content = args.file.read_text(encoding="utf-8")
        if args.kind == "note":
            text = open_note(content, args.key)
            print("OK", text, sep="\n", end="")
            return 0
        try:
            proof = json.loads(content)
        except json.JSONDecodeError as exc:
            raise VerifyError(f"the proof is not JSON: {exc}") from exc
        if not isinstance(proof, dict):
            raise VerifyError("the proof is a JSON object")
        checks = {"inclusion": check_inclusion, "consistency": check_consistency, "epochs": check_epochs}
        check = checks[args.kind]
        print(check(proof, args.key))
    except (VerifyError, OSError, UnicodeDecodeError) as exc:
        print(f"FAILED: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
