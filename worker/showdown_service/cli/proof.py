"""``showdown proof HAND_ID`` and ``showdown proof --consistency SIZE1 SIZE2``: the Merkle log's proofs.

``HAND_ID``: the hand's archived entry (the one that settled it), its leaf (the audit text), index, the tree
size and audit path, and the signed tree head of its chain it verifies against (:mod:`.proofs`), as
``scripts/verify_proof.py inclusion`` reads it.

``--consistency SIZE1 SIZE2``: within one chain of the shard (``--epoch``, default its newest), the proof and
the two roots it joins, read from the chain's tiles (:mod:`.tiles`: O(log n) reads, never the leaves), with
both signed tree heads when the archive holds heads of both sizes. An archive kept before tiles is proven from
its files' ``audit`` column (seq 1 is leaf 0): they must hold the chain's run from seq 1 up to ``SIZE2``
without a gap, else the command names the file and the seq where the run breaks.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, cast

import orjson

from showdown_service.cli.help import whole_number
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
With --to-epoch, SIZE2 is of the chain after --epoch's (after Redis lost a tail, a new chain begins at
seq 1): the proof goes from SIZE1 to the old chain's last signed head, then through the room's signed
epoch boundary to the new chain's head of SIZE2. Otherwise within one chain of the shard
(--epoch, default its newest): prints both roots, the consistency path
and both signed tree heads where the archive holds them, read from the chain's tiles (read-only); exit 1
naming the file where the archive's run from seq 1 breaks, or how far it goes.
docs/verify.md says how anyone checks a proof.

A signed head's RFC 3161 timestamp, when the archive keeps one, is added (and verified with
SHOWDOWN_ARCHIVE_TSA_CA when set).

Reads: SHOWDOWN_ARCHIVE_URL (unless --archive is given), SHOWDOWN_ARCHIVE_TSA_CA, and for S3
SHOWDOWN_ARCHIVE_S3_ENDPOINT, SHOWDOWN_ARCHIVE_S3_REGION and the archive's S3 credentials."""
PROOF_EXAMPLE = """\
example:
  showdown proof T-0042 --json > proof.json && python3 scripts/verify_proof.py inclusion proof.json --key KEY
  showdown proof --consistency 1000 250000 --archive /srv/showdown-archive --shard default --json
  showdown proof --consistency 1000 20 --to-epoch 9fa7f34d8c684e53 --json > epochs.json &&
    python3 scripts/verify_proof.py epochs epochs.json --key KEY"""


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
    p.add_argument("--epoch", metavar="EPOCH", help="with --consistency: the shard's chain (default: its newest)")
    p.add_argument(
        "--to-epoch",
        metavar="EPOCH",
        help="with --consistency: SIZE2 is of this chain, the one after --epoch's (a new chain after Redis lost "
        "the old one's tail): the proof goes through the room's signed epoch boundary",
    )
    p.add_argument("--json", action="store_true", help="one JSON object (hashes in base64)")
    p.set_defaults(run=_proof)


_size = whole_number(
    0, not_whole="a tree size is a whole number, got {text!r}", below="a tree size is 0 or more, got {value}"
)


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
    from showdown_service.archive.timestamps import TimestampError  # noqa: PLC0415
    from showdown_service.read.hands import in_archive  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415

    settings = Settings()
    url = _store(args, settings)
    if url is None:
        return 2
    try:
        store = open_store(url, settings)
        found = in_archive(settings, args.hand_id, url=url)
        leaf = None
        if found is not None and found.seq is not None:
            leaf = proofs.locate(store, found.shard, found.seq, found.entry_id)
        if leaf is None:
            sys.stderr.write(f"showdown proof: hand {args.hand_id} is not in the archive at {url}" + "\n")
            return 1
        document = proofs.inclusion(store, leaf, args.size)
        size = cast(int, document["tree_size"])
        stamped = _timestamp(store, leaf.shard, leaf.epoch, size=size, document=document, settings=settings)
    except (ArchiveError, ProofError, TimestampError) as exc:
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
        *([stamped] if stamped else []),
    ]
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    return 0


def _timestamp(
    store: Store, shard: str, epoch: str, *, size: int, document: dict[str, object], settings: Settings
) -> str:
    """Add the signed head's RFC 3161 timestamp to ``document`` (``timestamp``: the DER response in base64), verified
    with ``SHOWDOWN_ARCHIVE_TSA_CA`` when set (:class:`TimestampError` when it does not hold); the line to print."""
    from showdown_service.archive import timestamps, tlog  # noqa: PLC0415

    token = tlog.read_timestamp(store, shard, epoch, size)
    if token is None:
        return ""
    document["timestamp"] = base64.b64encode(token).decode()
    if settings.archive_tsa_ca is None:
        return "RFC 3161 timestamp kept beside the head (not verified here: SHOWDOWN_ARCHIVE_TSA_CA is not set)"
    when = timestamps.verify(str(document["checkpoint"]).encode("utf-8"), token, settings.archive_tsa_ca)
    return f"RFC 3161 timestamp of the signed head: {when} (verified with {settings.archive_tsa_ca})"


def _consistency(args: argparse.Namespace) -> int:
    from showdown_service.archive import proofs  # noqa: PLC0415
    from showdown_service.archive.merkle import ProofError  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError, epoch_runs, open_store  # noqa: PLC0415

    size1, size2 = args.consistency
    if size1 > size2 and args.to_epoch is None:
        sys.stderr.write(f"showdown proof: SIZE1 ({size1}) is at most SIZE2 ({size2})" + "\n")
        return 2
    settings = Settings()
    url = _store(args, settings)
    if url is None:
        return 2
    if args.to_epoch is not None:
        return _across(args, url, settings)
    try:
        store = open_store(url, settings)
        chains = epoch_runs(store, args.shard)
        epoch = proofs.newest_epoch(store, args.shard) if args.epoch is None else args.epoch[:16]
        if not chains:
            raise ArchiveError(f"the archive holds no entries of shard {args.shard}")
        if epoch not in chains:
            raise ArchiveError(f"shard {args.shard} has no chain {epoch} (its chains: {', '.join(sorted(chains))})")
        tree = proofs.tree_for(store, args.shard, epoch, size2)
        proof = tree.consistency_proof(size1, size2)
        root1, root2 = tree.root(size1), tree.root(size2)
        signed = proofs.signed_pair(store, args.shard, epoch, (size1, root1), (size2, root2))
    except (ArchiveError, ProofError) as exc:
        sys.stderr.write(f"showdown proof: {exc}" + "\n")
        return 1
    path = [base64.b64encode(p).decode() for p in proof.path]
    if args.json:
        document = {
            "shard": args.shard,
            "epoch": epoch,
            "size1": size1,
            "size2": size2,
            "root1": base64.b64encode(root1).decode(),
            "root2": base64.b64encode(root2).decode(),
            "consistency_path": path,
            **signed,
        }
        sys.stdout.buffer.write(orjson.dumps(document) + b"\n")
        return 0
    lines = [
        f"shard {args.shard}: the tree of {size1} entries is the start of the tree of {size2}",
        f"chain (epoch): {epoch or '(none)'}",
        f"root of {size1}: {base64.b64encode(root1).decode()}",
        f"root of {size2}: {base64.b64encode(root2).decode()}",
        f"consistency path ({len(path)} hashes, RFC 9162 section 2.1.4):",
        *(f"  {p}" for p in path),
        *(f"signed tree head of {size} entries:\n" + "".join(f"  {line}\n" for line in str(signed[name]).splitlines())
          for name, size in (("checkpoint1", size1), ("checkpoint2", size2)) if name in signed),
    ]  # fmt: skip
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    return 0


def _across(args: argparse.Namespace, url: str, settings: Settings) -> int:
    """``--consistency SIZE1 SIZE2 --epoch OLD --to-epoch NEW``: through the signed boundary between two chains."""
    from showdown_service.archive import proofs, tlog  # noqa: PLC0415
    from showdown_service.archive.merkle import ProofError  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError, open_store  # noqa: PLC0415

    size1, size2 = args.consistency
    try:
        store = open_store(url, settings)
        epoch1 = args.epoch
        if epoch1 is None:
            boundary = tlog.read_boundary(store, args.shard, args.to_epoch)
            if boundary is None:
                raise ArchiveError(f"shard {args.shard} has no signed epoch boundary into epoch {args.to_epoch}")
            epoch1 = tlog.parse_boundary(boundary[: boundary.rfind("\n\n") + 1])[0].origin.rsplit("/", 1)[1]
        document = proofs.across(store, args.shard, epoch1, args.to_epoch, size1=size1, size2=size2)
    except (ArchiveError, ProofError) as exc:
        sys.stderr.write(f"showdown proof: {exc}" + "\n")
        return 1
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(document) + b"\n")
        return 0
    inner = cast(dict[str, object], document["consistency"])
    lines = [
        f"shard {args.shard}: the tree of {size1} entries of epoch {document['epoch1']} is the start of its last "
        f"tree, of {inner['size2']} entries; the room signed that epoch {document['epoch2']} followed it (a new "
        f"chain from seq 1), whose tree of {size2} entries it signed",
        f"consistency path ({len(cast(list[str], inner['consistency_path']))} hashes, RFC 9162 section 2.1.4):",
        *(f"  {p}" for p in cast(list[str], inner["consistency_path"])),
        "signed epoch boundary:",
        *(f"  {line}" for line in str(document["boundary"]).splitlines()),
        f"signed tree head of {size2} entries of epoch {document['epoch2']}:",
        *(f"  {line}" for line in str(document["checkpoint2"]).splitlines()),
    ]
    sys.stdout.write("".join(f"{line}\n" for line in lines))
    return 0


def register_log_verbs(verbs: Commands) -> None:
    """Add ``archive verifier-key`` and ``archive cosign`` (a witness's) to the ``showdown archive`` parser."""
    v = verbs.add_parser(
        "verifier-key",
        help="print the key that verifies the signed tree heads, as name+keyid+base64 (c2sp.org/signed-note)",
        description="Print the verifier key of the archive's signed tree heads: SHOWDOWN_ARCHIVE_LOG_NAME (the key "
        "name) and the public half of SHOWDOWN_ARCHIVE_SIGNING_KEY (or --key), in the name+keyid+base64 form "
        "scripts/verify_proof.py --key and golang.org/x/mod/sumdb/note read.",
    )
    v.add_argument("--key", type=Path, metavar="PRIVATE_PEM", help="the signing key (default: the setting)")
    v.set_defaults(run=verifier_key)
    c = verbs.add_parser(
        "cosign",
        help="a witness's cosignature: add its signature line to a signed tree head the room's key verifies",
        description="For a witness (a party the room does not control): open the signed tree head NOTE with the "
        "room's verifier key (--log-key; refused unless its signature holds), add the witness's Ed25519 signature "
        "line (--key PRIVATE_PEM under --name) and print the cosigned note; its verifier key is printed to stderr.",
    )
    c.add_argument("note", type=Path, metavar="NOTE", help="a signed tree head (checkpoints/<shard>/*.note)")
    c.add_argument("--log-key", required=True, metavar="VKEY", help="the room's verifier key (name+keyid+base64)")
    c.add_argument("--key", type=Path, required=True, metavar="PRIVATE_PEM", help="the witness's Ed25519 key")
    c.add_argument("--name", required=True, help="the witness's key name (no spaces, no '+')")
    c.set_defaults(run=cosign_head)


def cosign_head(args: argparse.Namespace) -> int:
    """``showdown archive cosign``: the room's head, checked, with the witness's line added."""
    from showdown_service.archive.checkpoints import load_private_key  # noqa: PLC0415
    from showdown_service.archive.note import NoteError, Signer, Verifier, cosign, open_checkpoint  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError  # noqa: PLC0415

    try:
        note = args.note.read_text(encoding="utf-8")
        open_checkpoint(note, [Verifier.parse(args.log_key)])
        witness = Signer(args.name, load_private_key(args.key))
        sys.stdout.write(cosign(note, witness))
    except (OSError, ValueError, ArchiveError) as exc:
        why = "the room's signature does not hold" if isinstance(exc, NoteError) else "cannot cosign"
        sys.stderr.write(f"showdown archive cosign: {why}: {exc}" + "\n")
        return 1
    sys.stderr.write(f"witness verifier key: {witness.verifier.encode()}" + "\n")
    return 0


def verifier_key(args: argparse.Namespace) -> int:
    """``showdown archive verifier-key``: the room's key for its signed tree heads, ``name+keyid+base64``."""
    from showdown_service.archive.checkpoints import load_private_key  # noqa: PLC0415
    from showdown_service.archive.tlog import verifier_key as encoded  # noqa: PLC0415
    from showdown_service.storage.layout import ArchiveError  # noqa: PLC0415

    settings = Settings()
    path = args.key or settings.archive_signing_key
    if path is None:
        sys.stderr.write("no signing key: give --key PRIVATE_PEM or set SHOWDOWN_ARCHIVE_SIGNING_KEY" + "\n")
        return 2
    try:
        sys.stdout.write(encoded(settings.archive_log_name, load_private_key(path)) + "\n")
    except (OSError, ValueError, ArchiveError) as exc:
        sys.stderr.write(f"{path}: no Ed25519 private key read: {exc}" + "\n")
        return 2
    return 0


def log_place(settings: Settings, shard: str, seq: int | None, entry_id: str, hand_id: str) -> str:
    """Where an entry sits in its shard's Merkle log, and the command that proves it (``showdown hand``'s line)."""
    from showdown_service.archive.proofs import place_in_log  # noqa: PLC0415

    where, provable = place_in_log(settings, shard, seq, entry_id)
    return f"{where}: showdown proof {hand_id}" if provable else where
