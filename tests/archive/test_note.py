"""Signed tree heads: C2SP signed-note and tlog-checkpoint, against golang.org/x/mod/sumdb/note's published
test vectors (byte for byte) and the project's own keys, read by archive/note.py and by the standalone
verifier (scripts/verify_proof.py)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from scripts import verify_proof
from showdown_service.archive import checkpoints
from showdown_service.archive.merkle import CompactRange, MerkleTree, leaf_hash, record_leaf
from showdown_service.archive.note import (
    Checkpoint,
    NoteError,
    Signature,
    Signer,
    Verifier,
    consistency_document,
    cosign,
    inclusion_document,
    key_id,
    open_checkpoint,
    open_note,
    sign,
)

# golang.org/x/mod/sumdb/note note_test.go
PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
PETER_SIG = (
    "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
)
ENOCH_SIG = "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n"


def test_the_go_note_key_and_signature_are_reproduced_byte_for_byte() -> None:
    signer = Signer.parse(PETER_SKEY)
    assert signer.verifier.encode() == PETER_VKEY
    assert signer.verifier.key_id == 0xC74F20A3 == key_id("PeterNeumann", signer.verifier.public_key)
    assert sign(TEXT, signer) == TEXT + "\n" + PETER_SIG  # Ed25519 is deterministic (RFC 8032)
    assert Verifier.parse(PETER_VKEY) == signer.verifier
    opened = open_note(TEXT + "\n" + PETER_SIG, [Verifier.parse(PETER_VKEY)])
    assert opened.text == TEXT
    assert opened.verified == (Signature("PeterNeumann", 0xC74F20A3, base64.b64decode(PETER_SIG.split()[2])[4:]),)
    assert verify_proof.open_note(TEXT + "\n" + PETER_SIG, [PETER_VKEY]) == TEXT


def test_each_signature_line_verifies_on_its_own_and_unknown_keys_are_ignored() -> None:
    peter, enoch = Verifier.parse(PETER_VKEY), Verifier.parse(ENOCH_VKEY)
    both = TEXT + "\n" + PETER_SIG + ENOCH_SIG
    opened = open_note(both, [peter])
    assert [s.name for s in opened.verified] == ["PeterNeumann"]
    assert [(s.name, s.key_id) for s in opened.unverified] == [("EnochRoot", 0xAF0CFE78)]
    assert [s.name for s in open_note(both, [peter, enoch]).verified] == ["PeterNeumann", "EnochRoot"]
    assert [s.name for s in open_note(both, [enoch]).verified] == ["EnochRoot"]
    assert open_note(both, [peter]).encode() == both
    with pytest.raises(NoteError, match="no signature of a known key"):
        open_note(both, [])
    assert verify_proof.open_note(both, [ENOCH_VKEY]) == TEXT
    with pytest.raises(verify_proof.VerifyError, match="no signature"):
        verify_proof.open_note(TEXT + "\n" + ENOCH_SIG, [PETER_VKEY])
    # a line repeated word for word counts once; a known key's line that fails rejects the note
    repeated = open_note(TEXT + "\n" + PETER_SIG + PETER_SIG + ENOCH_SIG + ENOCH_SIG, [peter])
    assert len(repeated.verified) == 1
    assert len(repeated.unverified) == 1
    broken = TEXT + "\n" + PETER_SIG[:60] + "ABCD" + PETER_SIG[60:]
    with pytest.raises(NoteError, match="invalid signature for key PeterNeumann\\+c74f20a3"):
        open_note(broken, [peter])
    with pytest.raises(verify_proof.VerifyError, match="PeterNeumann"):
        verify_proof.open_note(broken, [PETER_VKEY])
    # same name, other key ID (or the reverse): an unknown key, ignored, never trusted
    other = Signer("PeterNeumann", Ed25519PrivateKey.generate())
    assert open_note(cosign(TEXT + "\n" + PETER_SIG, other), [peter]).unverified[0].name == "PeterNeumann"


def test_a_note_edited_or_signed_by_another_key_fails() -> None:
    peter = Verifier.parse(PETER_VKEY)
    edited = (TEXT + "\n" + PETER_SIG).replace("cryptography", "cryptographY")
    with pytest.raises(NoteError, match="invalid signature"):
        open_note(edited, [peter])
    with pytest.raises(verify_proof.VerifyError):
        verify_proof.open_note(edited, [PETER_VKEY])
    impostor = Signer("PeterNeumann", Ed25519PrivateKey.generate())
    with pytest.raises(NoteError, match="no signature of a known key"):
        open_note(sign(TEXT, impostor), [peter])


@pytest.mark.parametrize(
    "message",
    [
        TEXT,
        TEXT + "\n",
        TEXT + "\n" + PETER_SIG[:-1],
        "\x01" + TEXT + "\n" + PETER_SIG,
        TEXT + "\n" + PETER_SIG.replace("PeterNeumann", "Bad Name")[:-1],
        TEXT + "\n" + PETER_SIG + "Unexpected line.\n",
        TEXT + "\n" + PETER_SIG * 101,
    ],
)
def test_malformed_notes_are_refused(message: str) -> None:
    with pytest.raises(NoteError):
        open_note(message, [Verifier.parse(PETER_VKEY)])
    with pytest.raises(verify_proof.VerifyError):
        verify_proof.open_note(message, [PETER_VKEY])


def test_a_note_that_is_not_utf8_is_refused() -> None:
    with pytest.raises(NoteError, match="UTF-8"):
        open_note(b"\xff" + (TEXT + "\n" + PETER_SIG).encode(), [Verifier.parse(PETER_VKEY)])


def test_every_mangling_of_the_go_verifier_key_is_refused() -> None:
    """As note_test.go's TestNewVerifier: every proper substring and every byte incremented."""
    for i in range(len(PETER_VKEY) + 1):
        for j in range(i + 1, len(PETER_VKEY) + 1):
            if (i, j) != (0, len(PETER_VKEY)):
                with pytest.raises(NoteError):
                    Verifier.parse(PETER_VKEY[i:j])
    for i in range(len(PETER_VKEY)):
        mangled = PETER_VKEY[:i] + chr(ord(PETER_VKEY[i]) + 1) + PETER_VKEY[i + 1 :]
        with pytest.raises(NoteError):
            Verifier.parse(mangled)
        with pytest.raises(verify_proof.VerifyError):
            verify_proof.parse_key(mangled)
    for bad in (
        "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==",  # wrong length, adjusted hash
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",  # unknown algorithm, adjusted hash
    ):
        with pytest.raises(NoteError):
            Verifier.parse(bad)
    for i in range(len(PETER_SKEY)):
        mangled = PETER_SKEY[:i] + chr(ord(PETER_SKEY[i]) + 1) + PETER_SKEY[i + 1 :]
        with pytest.raises(NoteError):
            Signer.parse(mangled)


def test_checkpoint_bodies() -> None:
    # c2sp.org/tlog-checkpoint's example body
    example = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    parsed = Checkpoint.parse(example)
    assert (parsed.origin, parsed.size, parsed.extensions) == ("example.com/behind-the-sofa", 20852163, ())
    assert parsed.body() == example
    assert verify_proof.parse_checkpoint(example) == ("example.com/behind-the-sofa", 20852163, parsed.root)
    extended = Checkpoint("room.example/default", 0, bytes(32), ("ext one",))
    assert Checkpoint.parse(extended.body()) == extended
    for bad, why in (
        ("origin\n012\n" + base64.b64encode(bytes(32)).decode() + "\n", "leading zeros"),
        ("origin\n-1\n" + base64.b64encode(bytes(32)).decode() + "\n", "leading zeros"),
        ("origin\n12\n" + base64.b64encode(bytes(31)).decode() + "\n", "32 bytes"),
        ("origin\n12\nnot base64!\n", "base64"),
        ("origin\n12\n", "three lines"),
        ("origin\n12\n" + base64.b64encode(bytes(32)).decode() + "\n\n", "non-empty"),
        ("origin\n12\n" + base64.b64encode(bytes(32)).decode(), "newline"),
        ("\n12\n" + base64.b64encode(bytes(32)).decode() + "\n", "origin"),
    ):
        with pytest.raises(NoteError, match=why):
            Checkpoint.parse(bad)


def room_tree(n: int) -> tuple[list[str], MerkleTree]:
    records = [f'{{"hand_id":"h{i}","seq":{i + 1}}}' for i in range(n)]
    return records, MerkleTree.build([leaf_hash(record_leaf(r)) for r in records])


def test_the_archive_key_signs_checkpoints_a_witness_cosigns_and_the_standalone_verifier_agrees(
    tmp_path: Path,
) -> None:
    checkpoints.new_key_pair(tmp_path / "room.pem", tmp_path / "room.pub")
    room = Signer("room.example/default", checkpoints.load_private_key(tmp_path / "room.pem"))
    witness = Signer("witness.example", Ed25519PrivateKey.generate())
    records, tree = room_tree(11)
    head = Checkpoint("room.example/default", 11, tree.root())
    note = cosign(sign(head.body(), room), witness)
    opened, signed = open_checkpoint(note, [room.verifier, witness.verifier])
    assert opened == head
    assert [s.name for s in signed.verified] == ["room.example/default", "witness.example"]
    assert open_checkpoint(note, [witness.verifier])[0] == head
    with pytest.raises(NoteError, match="no signature of a known key"):
        open_checkpoint(note, [Signer("room.example/default", Ed25519PrivateKey.generate()).verifier])

    document = inclusion_document(records[7], tree.inclusion_proof(7), note)
    vkeys = [room.verifier.encode()]
    assert verify_proof.check_inclusion(document, vkeys) == "OK leaf 7 of 11 in room.example/default"
    assert verify_proof.check_inclusion(document, [witness.verifier.encode()]).startswith("OK")
    for edit, why in (
        ({"leaf": records[7].replace("h7", "h8")}, "root hash"),
        ({"leaf_index": 6}, "root hash"),
        ({"tree_size": 10}, "tree of 10 leaves"),
        ({"inclusion_path": document["inclusion_path"][:-1]}, "too short"),  # type: ignore[index]
        ({"checkpoint": note.replace("\n11\n", "\n12\n")}, "does not hold"),
    ):
        with pytest.raises(verify_proof.VerifyError, match=why):
            verify_proof.check_inclusion({**document, **edit}, vkeys)
    with pytest.raises(verify_proof.VerifyError, match="no signature"):
        verify_proof.check_inclusion(document, [Signer("x", Ed25519PrivateKey.generate()).verifier.encode()])


def test_the_standalone_verifier_checks_a_consistency_proof_between_two_signed_heads() -> None:
    room = Signer("room.example/default", Ed25519PrivateKey.generate())
    _, tree = room_tree(20)
    head7 = sign(Checkpoint("room.example/default", 7, tree.root(7)).body(), room)
    head20 = sign(Checkpoint("room.example/default", 20, tree.root()).body(), room)
    document = consistency_document(tree.consistency_proof(7), head7, head20)
    vkeys = [room.verifier.encode()]
    assert verify_proof.check_consistency(document, vkeys) == "OK tree 7 is a prefix of tree 20 in room.example/default"
    _, forked = room_tree(20)
    forked = MerkleTree.build([*forked.levels[0][:3], leaf_hash(b"rewritten"), *forked.levels[0][4:]])
    fork20 = sign(Checkpoint("room.example/default", 20, forked.root()).body(), room)
    with pytest.raises(verify_proof.VerifyError, match="does not join"):
        verify_proof.check_consistency({**document, "checkpoint2": fork20}, vkeys)
    same_size = consistency_document(tree.consistency_proof(20), fork20, head20)
    with pytest.raises(verify_proof.VerifyError, match="fork"):
        verify_proof.check_consistency(same_size, vkeys)


def test_the_standalone_verifier_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    room = Signer("room.example/default", Ed25519PrivateKey.generate())
    records, tree = room_tree(5)
    note = sign(Checkpoint("room.example/default", 5, CompactRange().extend(tree.levels[0]).root()).body(), room)
    proof = tmp_path / "proof.json"
    proof.write_text(json.dumps(inclusion_document(records[2], tree.inclusion_proof(2), note)), encoding="utf-8")
    assert verify_proof.main(["inclusion", str(proof), "--key", room.verifier.encode()]) == 0
    assert capsys.readouterr().out == "OK leaf 2 of 5 in room.example/default\n"
    proof.write_text(json.dumps(inclusion_document(records[3], tree.inclusion_proof(2), note)), encoding="utf-8")
    assert verify_proof.main(["inclusion", str(proof), "--key", room.verifier.encode()]) == 1
    assert "FAILED: the inclusion path does not lead to the checkpoint's root hash" in capsys.readouterr().err
    (tmp_path / "note").write_text(note, encoding="utf-8")
    assert verify_proof.main(["note", str(tmp_path / "note"), "--key", room.verifier.encode()]) == 0
    assert capsys.readouterr().out == "OK\n" + Checkpoint.parse(open_note(note, [room.verifier]).text).body()
    proof.write_text("[]", encoding="utf-8")
    assert verify_proof.main(["inclusion", str(proof), "--key", room.verifier.encode()]) == 1
    assert "JSON object" in capsys.readouterr().err


def test_signing_again_replaces_the_signer_s_own_line_and_refuses_a_text_that_is_not_a_note() -> None:
    """As note_test.go's TestSign: an existing line of the same key is replaced, a bad text refused."""
    signer = Signer.parse(PETER_SKEY)
    stale = TEXT + "\n" + "— PeterNeumann " + base64.b64encode(bytes.fromhex("c74f20a3") + b"BADSIGN").decode() + "\n"
    assert cosign(stale, signer) == TEXT + "\n" + PETER_SIG
    assert cosign(TEXT + "\n" + ENOCH_SIG, signer) == TEXT + "\n" + ENOCH_SIG + PETER_SIG
    for text, why in (("abc", "ends in a newline"), ("a\x07b\n", "control character")):
        with pytest.raises(NoteError, match=why):
            sign(text, signer)
    with pytest.raises(NoteError, match="at least one signature"):
        sign(TEXT)
