"""docker-compose.yml's `api` service (`showdown api`): consistent with the settings, the ACL file, the entrypoint
and the archiver's volume, and, short of containers, run for real as compose would run it (its command through
the image's entrypoint, its environment and secrets, on the redis service's own server and ACL file), its
healthcheck run as written."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from showdown_service.api.settings import ApiSettings
from showdown_service.infra.config import Settings
from showdown_service.testing.localredis import free_port
from tests.deploy.test_deploy_compose import (
    ENTRYPOINT,
    acl_line,
    clean_env,
    container_to_host,
    host_env,
    load_compose,
    resolve,
    seconds,
)
from tests.helpers import REPO
from tests.ops.test_acl import ACL_FILE, AclRedis, AclServer, wait_for, with_admin

DEMO_SECRETS = REPO / "deploy" / "compose" / "demo-secrets"
SETTINGS_ENV = {f"SHOWDOWN_{name.upper()}" for name in Settings.model_fields}
API_ENV = {f"SHOWDOWN_API_{name.upper()}" for name in ApiSettings.model_fields}
ENTRYPOINT_ENV = {"SHOWDOWN_REDIS_PASSWORD_FILE", "SHOWDOWN_API_TOKENS_FILE"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """docker-compose.yml as compose resolves it on a fresh checkout (no SHOWDOWN_* variable set)."""
    return resolve(load_compose(), REPO, clean_env())


@pytest.fixture
def compose_redis(compose: dict[str, Any], tmp_path: Path) -> Iterator[AclServer]:
    """redis-server with the redis service's own arguments; its ACL file plus the test admin."""
    args = [str(a) for a in compose["services"]["redis"]["command"]]
    index = args.index("--aclfile") + 1
    assert container_to_host(compose, "redis", args[index], tmp_path) == ACL_FILE
    acl_file, admin_password = with_admin(ACL_FILE, tmp_path)
    args[index] = str(acl_file)
    with AclRedis(admin_password, data_dir=tmp_path / "data", extra_args=args[1:]) as server:
        yield AclServer(server, admin_password)


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_the_api_service_serves_showdown_api_on_the_loopback_of_the_host_only(compose: dict[str, Any]) -> None:
    api = compose["services"]["api"]
    assert "profiles" not in api, "up with `docker compose up -d`, beside the worker and the archiver"
    assert api["build"] == compose["services"]["worker"]["build"]
    assert api["image"] == compose["services"]["worker"]["image"], "the one showdown image"
    command = api["command"]
    assert command[:2] == ["showdown", "api"]
    assert option(command, "--host") == "0.0.0.0", "inside its container: reachable through the published port"
    port = option(command, "--port")
    assert api["ports"] == [f"127.0.0.1:{port}:{port}"], "published on the host's loopback, never on every address"
    assert api["depends_on"] == {"redis": {"condition": "service_healthy"}}
    assert api["read_only"] is True
    assert api["cap_drop"] == ["ALL"]
    assert api["security_opt"] == ["no-new-privileges:true"]
    assert api["restart"] == "unless-stopped"
    assert api.get("stop_signal", "SIGTERM") == "SIGTERM"


def test_its_healthcheck_asks_readyz_on_the_api_s_own_port(compose: dict[str, Any]) -> None:
    api = compose["services"]["api"]
    test = api["healthcheck"]["test"]
    assert test[:3] == ["CMD", "python", "-c"], "the image has no curl: its Python asks"
    (url,) = re.findall(r"'(http://[^']+)'", test[3])
    assert url == f"http://127.0.0.1:{option(api['command'], '--port')}/readyz"
    assert "/healthz" not in test[3], "/healthz judges the workers' heartbeat, which this container does not have"
    assert seconds(api["healthcheck"]["timeout"]) > float(re.findall(r"timeout=(\d+)", test[3])[0])


def test_it_logs_in_as_the_api_acl_user_and_its_tokens_come_from_a_secret(
    compose: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    api = compose["services"]["api"]
    env = {k: str(v) for k, v in api["environment"].items()}
    assert set(env) <= SETTINGS_ENV | API_ENV | ENTRYPOINT_ENV, set(env) - SETTINGS_ENV - API_ENV - ENTRYPOINT_ENV
    assert not {"SHOWDOWN_REDIS_PASSWORD", "SHOWDOWN_API_TOKENS"} & set(env), "secrets, never inline"
    assert env["SHOWDOWN_REDIS_USERNAME"] == "api"
    secrets = {name: REPO / compose["secrets"][name]["file"] for name in api["secrets"]}
    password_file = secrets[env["SHOWDOWN_REDIS_PASSWORD_FILE"].removeprefix("/run/secrets/")]
    tokens_file = secrets[env["SHOWDOWN_API_TOKENS_FILE"].removeprefix("/run/secrets/")]
    assert set(secrets.values()) == {password_file, tokens_file}
    password = password_file.read_text(encoding="utf-8").strip()
    assert f" #{hashlib.sha256(password.encode()).hexdigest()} " in acl_line("api"), "the api user's password"
    for key in list(os.environ):
        if key.startswith("SHOWDOWN_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("SHOWDOWN_API_TOKENS", tokens_file.read_text(encoding="utf-8").strip())
    (token,) = ApiSettings().tokens  # parses as the API parses it
    demo = (DEMO_SECRETS / "api.token").read_text(encoding="utf-8")
    assert token.sha256 == hashlib.sha256(demo.encode()).hexdigest(), "the documented demo token opens it"
    assert demo.startswith("throwaway-"), "plainly a demo value"
    assert demo not in tokens_file.read_text(encoding="utf-8"), "the tokens file holds digests, never tokens"


def test_it_reads_the_archivers_archive_read_only(compose: dict[str, Any]) -> None:
    api, archiver = compose["services"]["api"], compose["services"]["archiver"]
    url = archiver["environment"]["SHOWDOWN_ARCHIVE_URL"]
    assert api["environment"]["SHOWDOWN_ARCHIVE_URL"] == url
    (written,) = [v for v in archiver["volumes"] if v.split(":")[1] == url]
    assert f"{written.split(':')[0]}:{url}:ro" in api["volumes"], "the same volume, mounted read-only"


def test_make_secrets_writes_a_token_the_api_accepts_and_compose_reads_from_the_same_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = tmp_path / "secrets"
    subprocess.run(["sh", str(REPO / "deploy" / "make-secrets.sh"), str(secrets)], capture_output=True, check=True)
    own = resolve(load_compose(), REPO, {**clean_env(), "SHOWDOWN_SECRETS_DIR": str(secrets)})
    assert own["secrets"]["api_tokens"]["file"] == f"{secrets}/api-tokens.json"
    token = (secrets / "api.token").read_text(encoding="utf-8")
    assert re.fullmatch(r"[0-9a-f]{64}", token)
    monkeypatch.setenv("SHOWDOWN_API_TOKENS", (secrets / "api-tokens.json").read_text(encoding="utf-8"))
    (configured,) = ApiSettings().tokens
    assert configured.sha256 == hashlib.sha256(token.encode()).hexdigest()
    assert set(configured.scopes) == {"hands:read", "tournaments:read", "dead-letters:read"}


def test_the_api_service_runs_as_compose_runs_it_healthy_with_its_token_and_stops_on_sigterm(
    compose: dict[str, Any], compose_redis: AclServer, tmp_path: Path
) -> None:
    api = compose["services"]["api"]
    port = free_port()  # each container has a network namespace of its own; here, a free port of this host
    command = [str(part) for part in api["command"]]
    command[command.index("--host") + 1] = "127.0.0.1"
    command[command.index("--port") + 1] = str(port)
    env = host_env(compose, "api", compose_redis.server.port, tmp_path)
    Path(env["SHOWDOWN_ARCHIVE_URL"]).mkdir(parents=True)  # the archive-data volume, empty: no archiver yet
    assert container_to_host(compose, "api", "/run/secrets/api_tokens", tmp_path) == DEMO_SECRETS / "api-tokens.json"
    admin = compose_redis.admin()
    showdown = Path(sys.executable).parent / "showdown"  # the console script the image runs (launch.main)
    log = tmp_path / "api.log"
    with log.open("wb") as sink:
        served = subprocess.Popen(["sh", str(ENTRYPOINT), str(showdown), *command[1:]], env=env, stdout=sink,
                                  stderr=subprocess.STDOUT)  # fmt: skip
    try:
        check = api["healthcheck"]["test"][1:]
        check[-1] = check[-1].replace(f"127.0.0.1:{option(api['command'], '--port')}/", f"127.0.0.1:{port}/")
        check[0] = sys.executable  # the image's python: this interpreter

        def healthy() -> bool:
            assert served.poll() is None, log.read_text(encoding="utf-8", errors="replace")
            return subprocess.run(check, capture_output=True, timeout=30, check=False).returncode == 0

        wait_for(healthy, f"the api healthcheck ({shlex.join(check)}) to pass")
        base = f"http://127.0.0.1:{port}"
        token = (DEMO_SECRETS / "api.token").read_text(encoding="utf-8")
        known = httpx.get(f"{base}/v1/hands/none-such", headers={"Authorization": f"Bearer {token}"}, timeout=10)
        anonymous = httpx.get(f"{base}/v1/hands/none-such", timeout=10)
    finally:
        served.send_signal(signal.SIGTERM)
        code = served.wait(seconds(api["stop_grace_period"]))
    assert (known.status_code, known.json()["status"]) == (404, "unknown"), "the demo token is let in"
    assert anonymous.status_code == 401
    assert code == 0, "SIGTERM: a clean stop within stop_grace_period"
    denied = [(entry["username"], entry["object"], entry["reason"]) for entry in admin.acl_log()]
    assert denied == [], "the API ran only what the api ACL user is granted"
    assert json.loads((DEMO_SECRETS / "api-tokens.json").read_text(encoding="utf-8"))[0]["name"] == "demo"


def test_every_showdown_service_runs_the_one_image_built_here_or_the_release_s_given(compose: dict[str, Any]) -> None:
    built = {name: spec for name, spec in compose["services"].items() if "build" in spec}
    assert {"worker", "archiver", "api", "producer", "reader", "auditor", "operator"} <= set(built)
    assert {spec["image"] for spec in built.values()} == {"showdown-worker:local"}, "built by hand: a local tag"
    released = "registry.example.com/showdown/showdown-worker:0.1.0"
    given = resolve(load_compose(), REPO, {**clean_env(), "SHOWDOWN_IMAGE": released})
    assert {given["services"][name]["image"] for name in built} == {released}, "docs/release.md's variable"


def entrypoint(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    shown = 'printf "%s|%s|%s" "$SHOWDOWN_API_TOKENS" "${SHOWDOWN_API_TOKENS_FILE-unset}" "$SHOWDOWN_REDIS_PASSWORD"'
    return subprocess.run(["sh", str(ENTRYPOINT), "sh", "-c", shown], env={"PATH": os.environ["PATH"], **env},
                          capture_output=True, text=True, timeout=30, check=False)  # fmt: skip


def test_the_entrypoint_passes_the_tokens_file_as_the_tokens_beside_the_password(tmp_path: Path) -> None:
    tokens = tmp_path / "api_tokens"
    tokens.write_text('[{"name": "a b", "sha256": "00", "scopes": []}]\n', encoding="utf-8")
    password = tmp_path / "api_password"
    password.write_text("pw", encoding="utf-8")
    both = entrypoint({"SHOWDOWN_API_TOKENS_FILE": str(tokens), "SHOWDOWN_REDIS_PASSWORD_FILE": str(password)})
    assert (both.returncode, both.stdout) == (0, '[{"name": "a b", "sha256": "00", "scopes": []}]|unset|pw')
    alone = entrypoint({"SHOWDOWN_API_TOKENS": "[]"})
    assert (alone.returncode, alone.stdout) == (0, "[]|unset|"), "without a file, the environment as it is"
    (tmp_path / "empty").write_text("", encoding="utf-8")
    refusals = {
        "cannot read SHOWDOWN_API_TOKENS_FILE": ({"SHOWDOWN_API_TOKENS_FILE": str(tmp_path / "none")}, 66),
        "is empty": ({"SHOWDOWN_API_TOKENS_FILE": str(tmp_path / "empty")}, 66),
        "set SHOWDOWN_API_TOKENS or SHOWDOWN_API_TOKENS_FILE, not both": (
            {"SHOWDOWN_API_TOKENS_FILE": str(tokens), "SHOWDOWN_API_TOKENS": "[]"}, 64),
    }  # fmt: skip
    for message, (env, status) in refusals.items():
        refused = entrypoint(env)
        assert (refused.returncode, refused.stdout) == (status, ""), message
        assert message in refused.stderr, refused.stderr
