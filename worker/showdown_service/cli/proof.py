"""``showdown proof HAND_ID`` and ``showdown proof --consistency SIZE1 SIZE2``: the Merkle log's proofs.

``HAND_ID``: the hand's archived entry (the one that settled it), its leaf (the audit text), index, the tree
size and audit path, and the signed tree head of its chain it verifies against (:mod:`.proofs`), as
``scripts/verify_proof.py inclusion`` reads it.

The leaves are the ``audit`` column of a shard's files, in seq order (seq 1 is leaf 0), read through
:mod:`.layout` and never written. The archive must hold the shard's run from seq 1 up to ``SIZE2`` without a
gap; otherwise the command names the file and the seq where the run breaks. Until the archiver signs C2SP
checkpoints (docs/archive.md, "The Merkle log"), the proof comes with the two roots it joins, computed here.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
from typing import TYPE_CHECKING, TypeAlias, cast

import orjson

from showdown_service.infra.config import Settings

if TYPE_CHECKING:
    from showdown_service.storage.layout import Store

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

PROOF_HELP = """\
showdown proof HAND_ID: prove that a hand's entry, its audit record exactly as archived, is in the
shard's Merkle log the room signed: its leaf index, the tree size, the audit path and the signed tree
head (c2sp.org/tlog-checkpoint) of the newest size (or --size N). Exit 1 when the hand is not archived
or no signed head holds it yet.

showdown proof --consistency SIZE1 SIZE2: prove that a shard's Merkle log only grew: the tree of its
first SIZE1 archived entries is the start of the tree of its first SIZE2 (RFC 9162 section 2.1.4).
Prints both roots and the consistency path, computed from the archive's audit column (read-only);
exit 1 naming the file where the archive's run from seq 1 breaks, or how far it goes.
docs/verify.md says how anyone checks a proof.

Reads: SHOWDOWN_ARCHIVE_URL (unless --archive is given), and for S3 SHOWDOWN_ARCHIVE_S3_ENDPOINT,
SHOWDOWN_ARCHIVE_S3_REGION and the archive's S3 credentials."""
PROOF_EXAMPLE = """\
example:
  showdown proof T-0042 --json > proof.json && python3 scripts/verify_proof.py inclusion proof.json --key KEY
  showdown proof --consistency 1000 250000 --archive /srv/showdown-archive --shard default --json"""


def register(commands: Commands) -> None:
    """Add ``proof`` to the ``showdown`` parser."""
    p = commands.add_parser(
        "proof",
        help="a hand's Merkle inclusion proof, or a consistency proof between two sizes of a shard's log",
        description=PROOF_HELP,
        epilog=PROOF_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("hand_id", nargs="?", metavar="HAND_ID", help="the hand whose inclusion proof to give")
    p.add_argument("--size", type=_size, help="with HAND_ID: the signed tree head of this size (default: the newest)")
    p.add_argument(
        "--consistency",
        nargs=2,
        type=_size,
        metavar=("SIZE1", "SIZE2"),
        help="the tree of the first SIZE1 archived entries is the start of the tree of the first SIZE2",
    )
    p.add_argument("--archive", metavar="URL", help="the archive (default: SHOWDOWN_ARCHIVE_URL)")
    p.add_argument("--shard", default="default", help="with --consistency: the shard whose log it is")
    p.add_argument("--json", action="store_true", help="one JSON object (hashes in base64)")
    p.set_defaults(run=_proof)


def _size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a tree size is a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a tree size is 0 or more, got {value}")
    return value


def archived_leaves(store: Store, shard: str, size: int) -> list[bytes]:
    """The first ``size`` leaves of ``shard``'s log: the audit texts of seq 1..size, as UTF-8 bytes.

    Raises :class:`~showdown_service.storage.layout.ArchiveError` naming where the run breaks (a file that
    does not start where the previous one ended, a row out of order, a null audit text) or how far it goes.
    """
    from showdown_service.archive.merkle import record_leaf  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError, read_rows, shard_files  # noqa: PLC0415

    leaves: list[bytes] = []
    for first, _last, path in shard_files(store, shard):
        if len(leaves) >= size:
            break
        if first != len(leaves) + 1:
            raise ArchiveError(
                f"archive file {path}: starts at seq {first}, the run of shard {shard} is at {len(leaves)}"
            )
        table = read_rows(store, path, columns=["seq", "audit"])
        for row, (seq, audit) in enumerate(zip(table["seq"].to_pylist(), table["audit"].to_pylist(), strict=True)):
            if seq != len(leaves) + 1:
                raise ArchiveError(f"archive file {path} row {row}: seq {seq} where {len(leaves) + 1} comes next")
            if not isinstance(audit, str):
                raise ArchiveError(f"archive file {path} row {row}: seq {seq} has no audit record")
            leaves.append(record_leaf(audit))
            if len(leaves) == size:
                break
    if len(leaves) < size:
        raise ArchiveError(f"the archive holds {len(leaves)} entries of shard {shard}, not {size}")
    return leaves


def _proof(args: argparse.Namespace) -> int:
    if (args.hand_id is None) == (args.consistency is None):
        sys.stderr.write("showdown proof: give HAND_ID or --consistency SIZE1 SIZE2 (one of them)" + "\n")
        return 2
    if args.hand_id is not None:
        return _inclusion(args)
    return _consistency(args)


def _store(args: argparse.Namespace, settings: Settings) -> str | None:
    url = args.archive or settings.archive_url
    if not url:
        sys.stderr.write("showdown proof: no archive: give --archive URL or set SHOWDOWN_ARCHIVE_URL" + "\n")
        return None
    if "://" not in url and not os.path.isdir(url):
        sys.stderr.write(f"showdown proof: no archive at {url}" + "\n")
        return None
    return str(url)


def _inclusion(args: argparse.Namespace) -> int:
    from showdown_service.archive import proofs  # noqa: PLC0415
    from showdown_service.archive.merkle import ProofError  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415
    from showdown_service.storage.recall import find_hand  # noqa: PLC0415

    settings = Settings()
    url = _store(args, settings)
    if url is None:
        return 2
    try:
        store = open_store(url, settings)
        found = find_hand(url, args.hand_id, settings=settings)
        leaf = None
        if found is not None and found.seq is not None:
            leaf = proofs.locate(store, found.shard, found.seq, found.entry_id)
        if leaf is None:
            sys.stderr.write(f"showdown proof: hand {args.hand_id} is not in the archive at {url}" + "\n")
            return 1
        document = proofs.inclusion(store, leaf, args.size)
    except (ArchiveError, ProofError) as exc:
        sys.stderr.write(f"showdown proof: {exc}" + "\n")
        return 1
    if args.json:
        sys.stdout.buffer.write(orjson.dumps({"hand_id": args.hand_id, **document}) + b"\n")
        return 0
    path = cast(list[str], document["inclusion_path"])
    lines = [
        f"hand {args.hand_id}: shard {leaf.shard} epoch {leaf.epoch}, seq {leaf.seq} ({leaf.file})",
        f"leaf {document['leaf_index']} of tree size {document['tree_size']}; the leaf is its audit record:",
        f"  {document['leaf']}",
        f"audit path ({len(path)} hashes, RFC 9162 section 2.1.3, nearest sibling first):",
        *(f"  {p}" for p in path),
        "signed tree head (c2sp.org/tlog-checkpoint):",
        *(f"  {line}" for line in str(document["checkpoint"]).splitlines()),
    ]
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    return 0


def _consistency(args: argparse.Namespace) -> int:
    from showdown_service.archive.merkle import MerkleTree, ProofError, leaf_hash  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415

    size1, size2 = args.consistency
    if size1 > size2:
        sys.stderr.write(f"showdown proof: SIZE1 ({size1}) is at most SIZE2 ({size2})" + "\n")
        return 2
    settings = Settings()
    url = _store(args, settings)
    if url is None:
        return 2
    try:
        leaves = archived_leaves(open_store(url, settings), args.shard, size2)
        tree = MerkleTree.build([leaf_hash(leaf) for leaf in leaves])
        proof = tree.consistency_proof(size1, size2)
    except (ArchiveError, ProofError) as exc:
        sys.stderr.write(f"showdown proof: {exc}" + "\n")
        return 1
    root1, root2 = tree.root(size1), tree.root(size2)
    path = [base64.b64encode(p).decode() for p in proof.path]
    if args.json:
        document = {
            "shard": args.shard,
            "size1": size1,
            "size2": size2,
            "root1": base64.b64encode(root1).decode(),
            "root2": base64.b64encode(root2).decode(),
            "consistency_path": path,
        }
        sys.stdout.buffer.write(orjson.dumps(document) + b"\n")
        return 0
    lines = [
        f"shard {args.shard}: the tree of {size1} entries is the start of the tree of {size2}",
        f"root of {size1}: {base64.b64encode(root1).decode()}",
        f"root of {size2}: {base64.b64encode(root2).decode()}",
        f"consistency path ({len(path)} hashes, RFC 9162 section 2.1.4):",
        *(f"  {p}" for p in path),
    ]
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    return 0
