"""Signed tree heads in the C2SP formats: ``tlog-checkpoint`` bodies signed as C2SP ``signed-note``s (Ed25519).

A checkpoint body (c2sp.org/tlog-checkpoint) is at least three non-empty lines: the origin (the log's name),
the tree size in decimal without leading zeros, the root hash in base64 (RFC 4648 section 4), then optional
non-empty extension lines, each line ending in a newline.

A signed note (c2sp.org/signed-note) is that text, a blank line, and one or more signature lines
``— <key name> base64(key ID || signature)`` (an em dash, U+2014). For Ed25519 the key ID is the first four
bytes (big-endian) of ``SHA-256(key name || 0x0A || 0x01 || 32-byte public key)`` and the signature is RFC
8032's over the note text (its final newline included, the blank line not). A verifier key is written
``<name>+<key ID, 8 hex digits>+base64(0x01 || public key)``, as golang.org/x/mod/sumdb/note prints it.

Each signature line verifies on its own: a witness's cosignature is one more line. Lines from keys the
reader does not know are ignored (the spec's MUST); a known key's line that fails rejects the whole note;
a note with no known key's line verifying is rejected.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from showdown_service.archive.merkle import HASH_SIZE, ConsistencyProof, InclusionProof

ALG_ED25519 = 0x01
"""The signature type byte of Ed25519 in c2sp.org/signed-note."""

EM_DASH = "\u2014"
MAX_SIGNATURES = 100
"""Signature lines read at most (the spec asks a verifier to accept at least 16; Go's reader stops at 100)."""

_HEX8 = re.compile(r"[0-9a-f]{8}")
_SIZE = re.compile(r"0|[1-9][0-9]*")


class NoteError(ValueError):
    """A note, a checkpoint or a key that is malformed, or a note that does not verify: the message says which."""


def _b64decode(text: str, what: str) -> bytes:
    """Strict standard base64: the alphabet and padding of RFC 4648 section 4 only, canonical."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise NoteError(f"{what} is not base64: {exc}") from exc
    if base64.b64encode(raw).decode() != text:
        raise NoteError(f"{what} is not canonical base64")
    return raw


def _check_name(name: str, what: str) -> None:
    if not name or any(c.isspace() for c in name) or "+" in name:
        raise NoteError(f"{what} {name!r}: a key name is non-empty, with no spaces and no '+'")


def key_id(name: str, public_key: bytes) -> int:
    """SHA-256(name || 0x0A || 0x01 || public key)[:4], big-endian: the Ed25519 key ID of c2sp.org/signed-note."""
    digest = hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([ALG_ED25519]) + public_key).digest()
    return int.from_bytes(digest[:4], "big")


# -- checkpoints ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A tree head: the log's ``origin``, its ``size`` and ``root`` hash, optional ``extensions`` lines."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.origin or "\n" in self.origin:
            raise NoteError("a checkpoint's origin is one non-empty line")
        if self.size < 0:
            raise NoteError(f"a tree size is never negative, got {self.size}")
        if len(self.root) != HASH_SIZE:
            raise NoteError(f"a root hash is {HASH_SIZE} bytes, got {len(self.root)}")
        for line in self.extensions:
            if not line or "\n" in line:
                raise NoteError(f"an extension line is one non-empty line, got {line!r}")

    def body(self) -> str:
        """The note text: origin, size, base64 root, extension lines, each ending in a newline."""
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode(), *self.extensions]
        return "".join(f"{line}\n" for line in lines)

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """A checkpoint body (a note's text, verified first: the text of an unverified note means nothing)."""
        if not text.endswith("\n"):
            raise NoteError("a checkpoint body ends in a newline")
        lines = text[:-1].split("\n")
        if len(lines) < 3:
            raise NoteError(f"a checkpoint body has at least three lines (origin, size, root), got {len(lines)}")
        origin, size, root, *extensions = lines
        if not _SIZE.fullmatch(size):
            raise NoteError(f"a checkpoint's tree size is a decimal without leading zeros, got {size!r}")
        for line in extensions:
            if not line:
                raise NoteError("a checkpoint's extension lines are non-empty")
        return cls(origin, int(size), _b64decode(root, "the checkpoint's root hash"), tuple(extensions))


# -- keys -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verifier:
    """A public key under its name: ``name+<key ID>+base64(0x01 || key)`` (:meth:`encode`, :meth:`parse`)."""

    name: str
    public_key: bytes

    def __post_init__(self) -> None:
        _check_name(self.name, "key name")
        if len(self.public_key) != 32:
            raise NoteError(f"an Ed25519 public key is 32 bytes, got {len(self.public_key)}")

    @property
    def key_id(self) -> int:
        return key_id(self.name, self.public_key)

    def encode(self) -> str:
        material = base64.b64encode(bytes([ALG_ED25519]) + self.public_key).decode()
        return f"{self.name}+{self.key_id:08x}+{material}"

    @classmethod
    def parse(cls, vkey: str) -> Verifier:
        """A verifier key as printed by :meth:`encode` (and golang.org/x/mod/sumdb/note): its key ID checked."""
        name, plus1, rest = vkey.partition("+")
        hash_hex, plus2, material = rest.partition("+")
        if not plus1 or not plus2:
            raise NoteError(f"a verifier key is name+keyid+base64, got {vkey!r}")
        _check_name(name, "key name")
        if not _HEX8.fullmatch(hash_hex):
            raise NoteError(f"a verifier key's ID is 8 lowercase hex digits, got {hash_hex!r}")
        raw = _b64decode(material, "the verifier key")
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise NoteError("a verifier key is 0x01 (Ed25519) and a 32-byte public key")
        verifier = cls(name, raw[1:])
        if verifier.key_id != int(hash_hex, 16):
            raise NoteError(f"the verifier key's ID {hash_hex} is not the hash of its name and key")
        return verifier

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True


@dataclass(frozen=True, slots=True)
class Signer:
    """An Ed25519 private key under its name: signs note texts."""

    name: str
    key: Ed25519PrivateKey

    def __post_init__(self) -> None:
        _check_name(self.name, "key name")

    @property
    def verifier(self) -> Verifier:
        raw = self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return Verifier(self.name, raw)

    @classmethod
    def from_seed(cls, name: str, seed: bytes) -> Signer:
        """The key whose RFC 8032 seed (32 bytes) is ``seed``."""
        if len(seed) != 32:
            raise NoteError(f"an Ed25519 seed is 32 bytes, got {len(seed)}")
        return cls(name, Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def parse(cls, skey: str) -> Signer:
        """A signer key as golang.org/x/mod/sumdb/note writes it: ``PRIVATE+KEY+name+keyid+base64(0x01||seed)``."""
        parts = skey.split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("a signer key is PRIVATE+KEY+name+keyid+base64")
        name, hash_hex, material = parts[2:]
        if not _HEX8.fullmatch(hash_hex):
            raise NoteError(f"a signer key's ID is 8 lowercase hex digits, got {hash_hex!r}")
        raw = _b64decode(material, "the signer key")
        if len(raw) != 33 or raw[0] != ALG_ED25519:
            raise NoteError("a signer key is 0x01 (Ed25519) and a 32-byte seed")
        signer = cls.from_seed(name, raw[1:])
        if signer.verifier.key_id != int(hash_hex, 16):
            raise NoteError(f"the signer key's ID {hash_hex} is not the hash of its name and key")
        return signer

    def sign(self, text: str) -> Signature:
        _check_text(text)
        return Signature(self.name, self.verifier.key_id, self.key.sign(text.encode("utf-8")))


# -- notes ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Signature:
    """One signature line: the key's ``name`` and ``key_id``, and the algorithm's signature bytes."""

    name: str
    key_id: int
    signature: bytes

    def line(self) -> str:
        blob = base64.b64encode(self.key_id.to_bytes(4, "big") + self.signature).decode()
        return f"{EM_DASH} {self.name} {blob}\n"


@dataclass(frozen=True, slots=True)
class Note:
    """A note's ``text`` and signature lines: ``verified`` (by keys given) and ``unverified`` (unknown keys)."""

    text: str
    verified: tuple[Signature, ...]
    unverified: tuple[Signature, ...]

    def encode(self) -> str:
        return self.text + "\n" + "".join(s.line() for s in (*self.verified, *self.unverified))


def _check_text(text: str) -> None:
    if not text.endswith("\n"):
        raise NoteError("a note's text ends in a newline")
    _check_characters(text)


def _check_characters(text: str) -> None:
    for c in text:
        if c < " " and c != "\n":
            raise NoteError(f"a note holds no control character but newline, found {c!r}")


def sign(text: str, *signers: Signer) -> str:
    """The signed note of ``text``: one signature line per signer, in order."""
    if not signers:
        raise NoteError("a signed note has at least one signature")
    return text + "\n" + "".join(signer.sign(text).line() for signer in signers)


def cosign(note: str, signer: Signer) -> str:
    """``note`` with ``signer``'s line added (a witness's cosignature); its existing lines kept as they are.

    The text is signed as it stands: whoever cosigns checks the log's own signature first (:func:`open_note`).
    """
    text, lines = _split(note)
    mine = signer.sign(text)
    kept = [line for line in lines if line.name != mine.name or line.key_id != mine.key_id]
    return text + "\n" + "".join(line.line() for line in kept) + mine.line()


def _split(note: str) -> tuple[str, list[Signature]]:
    """A note's text and its signature lines, parsed (nothing verified)."""
    _check_characters(note)
    cut = note.rfind("\n\n")
    if cut < 0:
        raise NoteError("a signed note is its text, a blank line and signature lines: no blank line found")
    text, block = note[: cut + 1], note[cut + 2 :]
    if not block.endswith("\n"):
        raise NoteError("a signed note ends with a signature line and its newline")
    lines = block[:-1].split("\n")
    if len(lines) > MAX_SIGNATURES:
        raise NoteError(f"a signed note has at most {MAX_SIGNATURES} signature lines, got {len(lines)}")
    signatures = []
    for line in lines:
        prefix = f"{EM_DASH} "
        if not line.startswith(prefix):
            raise NoteError(f"a signature line starts with an em dash and a space, got {line[:20]!r}")
        name, space, blob = line[len(prefix) :].partition(" ")
        if not space:
            raise NoteError(f"a signature line is '{EM_DASH} name signature', got {line!r}")
        _check_name(name, "signature name")
        raw = _b64decode(blob, f"{name}'s signature")
        if len(raw) < 5:
            raise NoteError(f"{name}'s signature is a 4-byte key ID and a signature, got {len(raw)} bytes")
        signatures.append(Signature(name, int.from_bytes(raw[:4], "big"), raw[4:]))
    return text, signatures


def open_note(note: str | bytes, verifiers: Iterable[Verifier]) -> Note:
    """Parse ``note`` and verify every line of a known key (name and key ID both match one of ``verifiers``).

    Raises :class:`NoteError` for a malformed note, a known key's line that fails, two verifiers of one name
    and ID, or no known key's line at all. Lines of unknown keys are kept in ``unverified``, never trusted;
    a line repeated word for word counts once.
    """
    if isinstance(note, bytes):
        try:
            note = note.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NoteError(f"a signed note is UTF-8: {exc}") from exc
    text, signatures = _split(note)
    known: dict[tuple[str, int], Verifier] = {}
    for verifier in verifiers:
        seen = known.setdefault((verifier.name, verifier.key_id), verifier)
        if seen.public_key != verifier.public_key:
            raise NoteError(f"two verifier keys named {verifier.name}+{verifier.key_id:08x}")
    verified: list[Signature] = []
    unverified: list[Signature] = []
    message = text.encode("utf-8")
    for signature in signatures:
        key = known.get((signature.name, signature.key_id))
        if key is None:
            if signature not in unverified:
                unverified.append(signature)
            continue
        if not key.verify(message, signature.signature):
            raise NoteError(f"invalid signature for key {signature.name}+{signature.key_id:08x}")
        if signature not in verified:
            verified.append(signature)
    if not verified:
        raise NoteError("the note has no signature of a known key")
    return Note(text, tuple(verified), tuple(unverified))


def open_checkpoint(note: str | bytes, verifiers: Iterable[Verifier]) -> tuple[Checkpoint, Note]:
    """A signed checkpoint, verified (:func:`open_note`), then its body parsed."""
    opened = open_note(note, verifiers)
    return Checkpoint.parse(opened.text), opened


# -- proof documents: what a verifier is handed (docs/verify.md, scripts/verify_proof.py) -------------------------


def inclusion_document(leaf: str, proof: InclusionProof, checkpoint: str) -> dict[str, object]:
    """The JSON of an inclusion proof: the audit record's text, its index, the tree size, the audit path (base64,
    nearest sibling first) and the signed checkpoint of that size it verifies against."""
    return {
        "leaf": leaf,
        "leaf_index": proof.leaf_index,
        "tree_size": proof.tree_size,
        "inclusion_path": [base64.b64encode(p).decode() for p in proof.path],
        "checkpoint": checkpoint,
    }


def consistency_document(proof: ConsistencyProof, checkpoint1: str, checkpoint2: str) -> dict[str, object]:
    """The JSON of a consistency proof between two signed checkpoints (of ``proof.size1`` and ``proof.size2``)."""
    return {
        "size1": proof.size1,
        "size2": proof.size2,
        "consistency_path": [base64.b64encode(p).decode() for p in proof.path],
        "checkpoint1": checkpoint1,
        "checkpoint2": checkpoint2,
    }
