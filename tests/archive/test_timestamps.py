"""Issue 37: RFC 3161 timestamps of the signed tree heads, with a real ``openssl ts`` acting as the timestamp
authority (a self-signed TSA certificate made here): kept beside each head, verified by ``showdown proof`` and
``showdown audit replay``, refused when they are another head's or another authority's."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from showdown_service.archive import timestamps
from showdown_service.archive.replay import Difference, replay
from showdown_service.cli.commands import main
from showdown_service.infra.config import Settings
from showdown_service.storage.layout import open_store
from tests.archive.test_archive import hands, settle_and_archive
from tests.archive.test_tlog import ENTRIES, chain_leaves, signed_settings

CONFIG = """\
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = {name}
[ v3_tsa ]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = critical, timeStamping
[ tsa ]
default_tsa = tsa_config1
[ tsa_config1 ]
dir = {dir}
serial = {dir}/serial
crypto_device = builtin
signer_digest = sha256
default_policy = 1.2.3.4.1
digests = sha256
accuracy = secs:1
ordering = no
tsa_name = no
ess_cert_id_chain = no
ess_cert_id_alg = sha256
"""


def make_tsa(directory: Path, name: str = "test TSA") -> tuple[str, Path]:
    """A timestamp authority run by ``openssl ts -reply``: the command that answers a query, and its certificate."""
    directory.mkdir()
    config = directory / "tsa.cnf"
    config.write_text(CONFIG.format(name=name, dir=directory))
    (directory / "serial").write_text("01\n")
    key, cert = directory / "tsa.key", directory / "tsa.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "2", "-config", str(config), "-extensions",
                    "v3_tsa"], check=True, capture_output=True)  # fmt: skip
    command = (f"openssl ts -reply -config {config} -queryfile /dev/stdin -signer {cert} -inkey {key} "
               "-out /dev/stdout")  # fmt: skip
    return command, cert


@pytest.fixture
def tsa(tmp_path: Path) -> tuple[str, Path]:
    if shutil.which("openssl") is None:
        raise AssertionError("openssl is on this machine's PATH (the image installs it)")
    return make_tsa(tmp_path / "tsa")


def heads_and_tokens(url: str) -> dict[int, tuple[str, bytes | None]]:
    found = {}
    for note in sorted((Path(url) / "checkpoints" / "default").glob("[0-9a-f]*.note")):
        token = note.with_suffix(".tsr")
        found[int(note.stem.split("-")[1])] = (note.read_text(), token.read_bytes() if token.exists() else None)
    return found


def replayed(settings: Settings) -> list[Difference]:
    found: list[Difference] = []
    replay(open_store(settings.archive_url), settings, found.append)
    return found


def test_the_query_is_rfc_3161_s_with_the_note_s_sha256_and_a_response_s_status_is_read(
    tsa: tuple[str, Path], tmp_path: Path
) -> None:
    request = tmp_path / "q.tsq"
    request.write_bytes(timestamps.query(b"a note\n"))
    shown = subprocess.run(["openssl", "ts", "-query", "-in", str(request), "-text"], capture_output=True, text=True,
                           check=True).stdout  # fmt: skip
    assert "Hash Algorithm: sha256" in shown
    assert "Certificate required: yes" in shown
    assert "Nonce: unspecified" in shown
    response = timestamps.stamp(b"a note\n", command=tsa[0])
    assert timestamps.status(response) == 0
    assert timestamps.verify(b"a note\n", response, tsa[1]).endswith("GMT")
    with pytest.raises(timestamps.TimestampError, match="does not verify"):
        timestamps.verify(b"another note\n", response, tsa[1])
    with pytest.raises(timestamps.TimestampError, match="not a TimeStampResp"):
        timestamps.status(b"\x04\x01\x00")
    with pytest.raises(timestamps.TimestampError, match="exited 1"):
        timestamps.stamp(b"a note\n", command="false")


def test_the_archiver_keeps_a_verified_timestamp_beside_every_signed_head_and_audit_replay_checks_them(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, tsa: tuple[str, Path]
) -> None:
    command, cert = tsa
    settings = signed_settings(make_settings, tmp_path, archive_tsa_command=command, archive_tsa_ca=cert)
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(ENTRIES)])
    kept = heads_and_tokens(settings.archive_url)
    assert sorted(kept) == [25, 50, 70]
    for note, token in kept.values():
        assert token is not None, "every signed head has its timestamp"
        timestamps.verify(note.encode(), token, cert)
    assert replayed(settings) == []
    ((epoch, _),) = chain_leaves(settings.archive_url).items()
    folder = Path(settings.archive_url) / "checkpoints" / "default"
    (folder / f"{epoch}-{25:012d}.tsr").write_bytes(kept[50][1] or b"")  # another head's token
    _, other = make_tsa(tmp_path / "other", "another TSA")
    found = replayed(settings)
    assert [(d.kind, d.seq) for d in found] == [("tree_head_timestamp", 25)]
    assert "does not verify" in found[0].detail
    assert [d.kind for d in replayed(settings.model_copy(update={"archive_tsa_ca": other}))] == [
        "tree_head_timestamp"
    ] * 3, "another authority's certificate verifies none"


def test_showdown_proof_hands_out_the_head_s_timestamp_and_verifies_it_with_the_tsa_s_certificate(
    fake: fakeredis.FakeRedis,
    make_settings: Any,
    tmp_path: Path,
    tsa: tuple[str, Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    command, cert = tsa
    settings = signed_settings(make_settings, tmp_path, archive_tsa_command=command)
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(ENTRIES)])
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_TSA_CA", str(cert))
    assert main(["proof", "h-3", "--json", "--archive", settings.archive_url]) == 0
    document = json.loads(capsys.readouterr().out)
    timestamps.verify(document["checkpoint"].encode(), base64.b64decode(document["timestamp"]), cert)
    assert main(["proof", "h-3", "--archive", settings.archive_url]) == 0
    assert "RFC 3161 timestamp of the signed head: " in capsys.readouterr().out
    _, other = make_tsa(tmp_path / "other", "another TSA")
    monkeypatch.setenv("SHOWDOWN_ARCHIVE_TSA_CA", str(other))
    assert main(["proof", "h-3", "--archive", settings.archive_url]) == 1
    assert "the timestamp does not verify" in capsys.readouterr().err


class _Authority(BaseHTTPRequestHandler):
    tsa_command = ""

    def do_POST(self) -> None:
        query = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers["Content-Type"] != "application/timestamp-query":
            self.send_response(415)
            self.end_headers()
            return
        answer = subprocess.run(self.tsa_command.split(), input=query, capture_output=True, check=True).stdout
        self.send_response(200)
        self.send_header("Content-Type", "application/timestamp-reply")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def tsa_url(tsa: tuple[str, Path]) -> Iterator[str]:
    """An RFC 3161 server over HTTP on a free 127.0.0.1 port, answering with ``openssl ts -reply``."""
    handler = type("Authority", (_Authority,), {"tsa_command": tsa[0]})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/tsa"
    finally:
        server.shutdown()
        server.server_close()


def test_a_timestamp_authority_over_http_and_one_that_fails_without_stopping_the_archive(
    fake: fakeredis.FakeRedis, make_settings: Any, tmp_path: Path, tsa: tuple[str, Path], tsa_url: str
) -> None:
    settings = signed_settings(make_settings, tmp_path, archive_tsa_url=tsa_url)
    settle_and_archive(fake, settings, [("event", json.dumps(doc)) for doc in hands(30)])
    kept = heads_and_tokens(settings.archive_url)
    assert [token is not None for _, token in kept.values()] == [True, True]
    for note, token in kept.values():
        timestamps.verify(note.encode(), token or b"", tsa[1])
    (tmp_path / "b").mkdir()
    failing = signed_settings(make_settings, tmp_path / "b", archive_tsa_url="http://127.0.0.1:1/none")
    other = fakeredis.FakeRedis(server=fakeredis.FakeServer(), protocol=2)
    settle_and_archive(other, failing, [("event", json.dumps(doc)) for doc in hands(30)])
    kept = heads_and_tokens(failing.archive_url)
    assert sorted(kept) == [25, 30], "archived and signed all the same"
    assert [token for _, token in kept.values()] == [None, None]
