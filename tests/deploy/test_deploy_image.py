"""deploy/Dockerfile and .dockerignore, read statically (there is no Docker engine here), and the image's
entrypoint script, run for real."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from showdown_service.infra.config import Settings
from tests.helpers import REPO

DOCKERFILE = REPO / "deploy" / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"
ENTRYPOINT = REPO / "deploy" / "docker-entrypoint.sh"
BUILD_TOOLS = re.compile(r"\b(apt-get|apt|apk|gcc|g\+\+|cc|make|build-essential|git|curl|wget|hatch|hatchling|"
                         r"setuptools-scm|poetry|uv|pip wheel|python -m build)\b")  # fmt: skip


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str


@dataclass(frozen=True)
class Stage:
    base: str
    name: str | None
    instructions: list[Instruction]

    def all(self, keyword: str) -> list[str]:
        return [i.arguments for i in self.instructions if i.keyword == keyword]

    def one(self, keyword: str) -> str:
        (found,) = self.all(keyword)
        return found


def parse_dockerfile(text: str) -> tuple[dict[str, str], list[Stage]]:
    """Global ARG defaults and the stages of a Dockerfile (comments dropped, continuation lines joined)."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in logical:
        keyword, _, rest = line.partition(" ")
        keyword, rest = keyword.upper(), rest.strip()
        if keyword == "FROM":
            base, _, name = rest.partition(" AS ")
            stages.append(Stage(base.strip(), name.strip() or None, []))
        elif not stages and keyword == "ARG":
            key, _, default = rest.partition("=")
            args[key] = default
        else:
            assert stages, f"{keyword} before the first FROM"
            stages[-1].instructions.append(Instruction(keyword, rest))
    return args, stages


@pytest.fixture(scope="module")
def dockerfile() -> tuple[dict[str, str], list[Stage]]:
    return parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))


def test_the_image_is_built_in_two_stages_from_one_pinned_slim_python_3_11_or_later(
    dockerfile: tuple[dict[str, str], list[Stage]],
) -> None:
    args, stages = dockerfile
    assert len(stages) >= 2, "multi-stage"
    assert {stage.base for stage in stages} == {"${PYTHON_IMAGE}"}, "every stage on the one pinned base"
    match = re.fullmatch(r"python:3\.(\d+)\.(\d+)-slim-([a-z]+)(@sha256:[0-9a-f]{64})?", args["PYTHON_IMAGE"])
    assert match, f"pin a slim Python to a patch release and a Debian release, not {args['PYTHON_IMAGE']!r}"
    assert int(match[1]) >= 11
    assert stages[0].name == "build"


def test_the_build_stage_makes_the_service_wheel_from_pinned_binary_dependencies(
    dockerfile: tuple[dict[str, str], list[Stage]],
) -> None:
    build = dockerfile[1][0]
    (wheel,) = [run for run in build.all("RUN") if "pip wheel" in run]
    words = wheel.split()
    assert "." in words, "showdown-service"
    assert "./shared" not in words, "the service's wheel holds the contract: one copy of it in the image"
    assert "--constraint constraints.txt" in wheel
    assert "--only-binary=:all:" in wheel, "nothing compiled, so no compiler needed"
    assert "--wheel-dir /wheels" in wheel


def test_the_final_stage_installs_only_the_service_and_its_dependencies_and_has_no_build_tools(
    dockerfile: tuple[dict[str, str], list[Stage]],
) -> None:
    final = dockerfile[1][-1]
    (install,) = final.all("RUN")
    assert "--mount=type=bind,from=build,source=/wheels,target=/wheels" in install, "wheels mounted, not copied"
    assert re.search(r"pip install --no-index --find-links=/wheels showdown-service\s+&&", install)
    assert "pip uninstall --yes pip setuptools wheel" in install
    assert not BUILD_TOOLS.search(install.replace("python -m pip install", "").replace("pip uninstall", ""))
    sources = [arguments.split()[-2] for arguments in final.all("COPY")]
    assert sources == ["deploy/docker-entrypoint.sh"], "no source tree in the final image"
    assert all("--from" not in arguments for arguments in final.all("COPY"))


def test_the_final_stage_runs_showdown_worker_as_a_non_root_user_with_a_healthcheck_and_sigterm(
    dockerfile: tuple[dict[str, str], list[Stage]],
) -> None:
    final = dockerfile[1][-1]
    keywords = [i.keyword for i in final.instructions]
    user = final.one("USER")
    uid = user.split(":")[0]
    assert uid.isdigit(), "a numeric uid, so Kubernetes' runAsNonRoot can check it"
    assert int(uid) >= 1000
    assert f"--uid {uid}" in final.one("RUN")
    assert keywords.index("USER") < keywords.index("ENTRYPOINT")
    assert keywords.index("USER") < keywords.index("CMD")
    healthcheck = final.one("HEALTHCHECK")
    assert re.search(r'CMD \["showdown-entrypoint", "showdown", "health"\]', healthcheck)
    assert final.one("ENTRYPOINT") == '["showdown-entrypoint"]'
    assert final.one("CMD") == '["showdown", "worker"]'
    assert final.one("STOPSIGNAL") == "SIGTERM"
    assert final.one("EXPOSE") == str(Settings().metrics_port)
    env = " ".join(final.all("ENV"))
    heartbeat = re.search(r"SHOWDOWN_HEARTBEAT_FILE=(\S+)", env)
    assert heartbeat, "the heartbeat file is named"
    assert heartbeat[1].startswith("/tmp/"), "on the writable tmpfs / emptyDir"


# --- .dockerignore ------------------------------------------------------------------------------------------


def ignore_patterns() -> list[tuple[bool, re.Pattern[str]]]:
    """(negated, regex) per .dockerignore line, in order (Docker's syntax: *, ?, **, ! exceptions)."""
    patterns = []
    for raw in DOCKERIGNORE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        glob = line.removeprefix("!").strip("/")
        regex = ""
        i = 0
        while i < len(glob):
            if glob.startswith("**/", i):
                regex, i = regex + "(?:.*/)?", i + 3
            elif glob.startswith("**", i):
                regex, i = regex + ".*", i + 2
            elif glob[i] == "*":
                regex, i = regex + "[^/]*", i + 1
            elif glob[i] == "?":
                regex, i = regex + "[^/]", i + 1
            elif glob[i] == "[":
                end = glob.index("]", i)
                regex, i = regex + glob[i : end + 1], end + 1
            else:
                regex, i = regex + re.escape(glob[i]), i + 1
        patterns.append((negated, re.compile(regex)))
    return patterns


def sent_to_docker(path: str) -> bool:
    """Whether the build context includes ``path``: the last pattern matching it or a parent decides."""
    parts = path.split("/")
    excluded = False
    for negated, regex in ignore_patterns():
        if any(regex.fullmatch("/".join(parts[:n])) for n in range(1, len(parts) + 1)):
            excluded = not negated
    return not excluded


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, timeout=30, check=True)
    return listed.stdout.splitlines()


def test_dockerignore_sends_every_file_the_build_copies_and_the_wheels_need(
    dockerfile: tuple[dict[str, str], list[Stage]],
) -> None:
    copied = [
        source
        for stage in dockerfile[1]
        for arguments in stage.all("COPY")
        for source in [w for w in arguments.split() if not w.startswith("--")][:-1]
    ]
    assert copied
    for source in copied:
        assert (REPO / source).exists(), source
        assert sent_to_docker(source.rstrip("/")), f".dockerignore leaves out {source}"
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    needed = [pyproject["project"]["readme"], "constraints.txt", "LICENSE"]
    for package in pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]:
        needed += [path for path in tracked_files() if path.startswith(package + "/")]
        assert any(f"{package}/".startswith(source) for source in copied), f"the Dockerfile copies no {package}/"
    assert "worker/showdown_service/data/showdowns.jsonl" in needed
    assert "shared/showdown_rules/cards.py" in needed
    left_out = [path for path in needed if not sent_to_docker(path)]
    assert not left_out, f".dockerignore leaves out what the wheels need: {left_out}"


@pytest.mark.parametrize(
    "path",
    [".venv/bin/python", ".git/HEAD", "tests/ops/test_acl.py", "docs/deploy.md", "bench/__init__.py",
     "deploy/compose/demo-secrets/worker.password", "deploy/k8s/deployment.yaml", "docker-compose.yml",
     "worker/showdown_service/__pycache__/cli.cpython-311.pyc", ".mypy_cache/3.11/x.json"],
)  # fmt: skip
def test_dockerignore_keeps_everything_else_out_of_the_build_context(path: str) -> None:
    assert not sent_to_docker(path)


# --- the entrypoint -------------------------------------------------------------------------------------------------


def entrypoint(*command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ["PATH"]}
    return subprocess.run(["sh", str(ENTRYPOINT), *command], env={**base, **env}, capture_output=True, text=True,
                          timeout=30, check=False)  # fmt: skip


def test_the_entrypoint_is_an_executable_posix_shell_script() -> None:
    assert ENTRYPOINT.read_text(encoding="utf-8").startswith("#!/bin/sh\n")
    assert os.access(ENTRYPOINT, os.X_OK)
    assert subprocess.run(["sh", "-n", str(ENTRYPOINT)], timeout=30, check=False).returncode == 0


def test_the_entrypoint_passes_the_password_file_to_the_command_as_the_password(tmp_path: Path) -> None:
    secret = tmp_path / "worker_password"
    secret.write_text("s3cret with spaces\n", encoding="utf-8")
    shown = entrypoint("sh", "-c", 'printf "%s|%s" "$SHOWDOWN_REDIS_PASSWORD" "${SHOWDOWN_REDIS_PASSWORD_FILE-unset}"',
                       env={"SHOWDOWN_REDIS_PASSWORD_FILE": str(secret)})  # fmt: skip
    assert (shown.returncode, shown.stdout) == (0, "s3cret with spaces|unset")


def test_the_entrypoint_leaves_the_environment_alone_without_a_password_file() -> None:
    shown = entrypoint(
        "sh", "-c", 'printf "%s" "$SHOWDOWN_REDIS_PASSWORD"', env={"SHOWDOWN_REDIS_PASSWORD": "from-env"}
    )
    assert (shown.returncode, shown.stdout) == (0, "from-env")


@pytest.mark.parametrize(
    ("env", "status", "message"),
    [
        ({"SHOWDOWN_REDIS_PASSWORD_FILE": "/nonexistent/secret"}, 66, "cannot read"),
        ({"SHOWDOWN_REDIS_PASSWORD_FILE": "EMPTY"}, 66, "is empty"),
        ({"SHOWDOWN_REDIS_PASSWORD_FILE": "SECRET", "SHOWDOWN_REDIS_PASSWORD": "x"}, 64, "not both"),
    ],
)
def test_the_entrypoint_refuses_a_missing_empty_or_doubled_password(
    tmp_path: Path, env: dict[str, str], status: int, message: str
) -> None:
    (tmp_path / "EMPTY").write_text("", encoding="utf-8")
    (tmp_path / "SECRET").write_text("s", encoding="utf-8")
    env = {k: str(tmp_path / v) if v in {"EMPTY", "SECRET"} else v for k, v in env.items()}
    refused = entrypoint("true", env=env)
    assert refused.returncode == status
    assert message in refused.stderr


def test_the_entrypoint_runs_showdown_worker_when_given_no_command(tmp_path: Path) -> None:
    fake = tmp_path / "showdown"
    fake.write_text('#!/bin/sh\necho "showdown $*"\n', encoding="utf-8")
    fake.chmod(0o755)
    ran = subprocess.run(["sh", str(ENTRYPOINT)], env={"PATH": f"{tmp_path}:{os.environ['PATH']}"},
                         capture_output=True, text=True, timeout=30, check=False)  # fmt: skip
    assert (ran.returncode, ran.stdout) == (0, "showdown worker\n")
