"""docs/verify.md's worked example is what the code produces, and the standalone verifier accepts it.

Run as a script (``python -m tests.archive.test_verify_doc``) to print the example's blocks when the formats change.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from scripts import verify_proof
from showdown_service.archive.merkle import MerkleTree, leaf_hash, record_leaf
from showdown_service.archive.note import Checkpoint, Signer, consistency_document, inclusion_document, sign
from showdown_service.decision.audit import EMPTY, make_record, sha256_hex
from tests.helpers import REPO
from tests.project.test_docs import _build_copy

ORIGIN = "rooms.example/showdown/default"
SEED = hashlib.sha256(b"docs/verify.md example key: published, so never a room's key").digest()


def worked_example() -> dict[str, str]:
    """The blocks of docs/verify.md's example, each exactly as the doc shows it."""
    head, records = EMPTY, []
    for i in range(1, 6):
        _, stored, head = make_record(
            head,
            hand_id=f"hand-{i}",
            entry_id=f"1764316800000-{i - 1}",
            outcome="settled",
            code=None,
            event_sha256=sha256_hex(f"event {i}".encode()),
            result_sha256=sha256_hex(f"result {i}".encode()),
            worker="worker-1",
            at=f"2025-11-28T08:00:0{i}Z",
        )
        records.append(stored.decode())
    tree = MerkleTree.build([leaf_hash(record_leaf(r)) for r in records])
    signer = Signer.from_seed(ORIGIN, SEED)
    head3 = sign(Checkpoint(ORIGIN, 3, tree.root(3)).body(), signer)
    head5 = sign(Checkpoint(ORIGIN, 5, tree.root()).body(), signer)
    inclusion = inclusion_document(records[2], tree.inclusion_proof(2), head5)
    consistency = consistency_document(tree.consistency_proof(3), head3, head5)
    return {
        "leaf": records[2],
        "leaf_hash": leaf_hash(record_leaf(records[2])).hex(),
        "root": tree.root().hex(),
        "key": signer.verifier.encode(),
        "checkpoint": head5,
        "inclusion": json.dumps(inclusion, indent=2, ensure_ascii=False),
        "consistency": json.dumps(consistency, indent=2, ensure_ascii=False),
    }


def test_the_worked_example_in_docs_verify_md_is_what_the_code_produces() -> None:
    doc = (REPO / "docs" / "verify.md").read_text(encoding="utf-8")
    for name, block in worked_example().items():
        assert block in doc, f"docs/verify.md does not show the example's {name} as the code makes it:\n{block}"


def test_the_standalone_verifier_accepts_the_worked_example(tmp_path: Path) -> None:
    example = worked_example()
    assert verify_proof.check_inclusion(json.loads(example["inclusion"]), [example["key"]]) == (
        f"OK leaf 2 of 5 in {ORIGIN}"
    )
    assert verify_proof.check_consistency(json.loads(example["consistency"]), [example["key"]]) == (
        f"OK tree 3 is a prefix of tree 5 in {ORIGIN}"
    )
    (tmp_path / "proof.json").write_text(example["inclusion"], encoding="utf-8")
    assert verify_proof.main(["inclusion", str(tmp_path / "proof.json"), "--key", example["key"]]) == 0


def test_the_site_publishes_the_standalone_verifier_byte_for_byte(tmp_path: Path) -> None:
    built = _build_copy(tmp_path)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "verify_proof.py").read_bytes() == (REPO / "scripts" / "verify_proof.py").read_bytes()
    assert 'href="verify_proof.py"' in (tmp_path / "site" / "verify.html").read_text(encoding="utf-8")


if __name__ == "__main__":
    for name, block in worked_example().items():
        print(f"--- {name}\n{block}")
