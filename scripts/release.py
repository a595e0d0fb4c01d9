"""``make release``: check that every version agrees, then build, check and try the release (docs/release.md).

    python scripts/release.py [--out DIR] [--offline] [--image]

1. **Versions** (:func:`problems`): showdown-service's version in pyproject.toml and ``showdown_service.__version__``;
   showdown-messages' in shared/pyproject.toml, ``showdown_messages.__version__`` and the AsyncAPI document; the
   contract's major is the ``schema_version`` it speaks (``SCHEMA_VERSION``); the Kubernetes base's image tag is the
   service's version; CHANGELOG.md has an Unreleased section and a dated section of this version naming the
   contract's version. Any disagreement stops the release, each named.
2. **Build**: an sdist and a wheel of each package (``python -m build --no-isolation``: the pinned hatchling of the
   virtualenv, nothing fetched), their timestamps the last commit's (SOURCE_DATE_EPOCH): the same commit builds the
   same bytes.
3. **Check**: ``twine check --strict`` on every file.
4. **Try** (:func:`smoke`): each wheel into a new virtualenv of its own, then in it: import the package from that
   virtualenv (never the checkout), validate an event with the contract, and for the service settle the bundled
   hands with its ``showdown`` command. The dependencies come from the package index, at the versions of
   constraints.txt; with ``--offline``, from this virtualenv, read-only (see :func:`smoke`).
5. **Record**: ``SHA256SUMS`` of the files, and the commands that publish them (outside this machine): the tag,
   ``twine upload``, the image (``--image`` builds it here: :func:`image_command`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"showdown-service": ROOT, "showdown-messages": ROOT / "shared"}
"""Each distribution and its project directory."""
IMAGE = "showdown-worker"
STEP_TIMEOUT_S = 300.0
"""The longest one step (a build, an install, a try) may take: a release never hangs."""
SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
"""MAJOR.MINOR.PATCH, nothing more (no pre-release or local part): what a tag v<version> names."""
EVENT = {
    "schema_version": 1,
    "hand_id": "release-smoke-1",
    "table_id": "t1",
    "variant": "holdem",
    "board": ["Ah", "Kd", "7c", "7s", "2h"],
    "button_seat": 1,
    "players": [
        {"seat": 1, "player_id": "ann", "hole_cards": ["As", "Ac"], "contributed": 100, "folded": False},
        {"seat": 2, "player_id": "bo", "hole_cards": ["Kc", "Ks"], "contributed": 100, "folded": False},
    ],
}
"""The event each installed contract validates (and, for the service, settles: ann's aces full win the 200)."""


@dataclass(frozen=True, slots=True)
class Versions:
    """Every place a version is written."""

    service: str
    service_module: str
    contract: str
    contract_module: str
    schema_version: int
    asyncapi: str
    image_tag: str


def _assigned(path: Path, name: str) -> str:
    """The string literal assigned to ``name`` at the top level of a Python file (read, not imported)."""
    found = re.search(rf'^{name}\s*(?::[^=]+)?=\s*"([^"]*)"', path.read_text(encoding="utf-8"), re.MULTILINE)
    if found is None:
        raise SystemExit(f'release: no {name} = "..." in {path}')
    return found[1]


def versions(root: Path = ROOT) -> Versions:
    def project_version(directory: Path) -> str:
        return str(tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])

    limits = (root / "shared/showdown_rules/limits.py").read_text(encoding="utf-8")
    schema = re.search(r"^SCHEMA_VERSION: Final = (\d+)$", limits, re.MULTILINE)
    tag = re.search(r"^\s+newTag:\s*(\S+)$", (root / "deploy/k8s/kustomization.yaml").read_text(encoding="utf-8"),
                    re.MULTILINE)  # fmt: skip
    asyncapi = json.loads((root / "shared/schemas/asyncapi.json").read_text(encoding="utf-8"))
    return Versions(
        service=project_version(root),
        service_module=_assigned(root / "worker/showdown_service/__init__.py", "__version__"),
        contract=project_version(root / "shared"),
        contract_module=_assigned(root / "shared/showdown_messages/__init__.py", "__version__"),
        schema_version=int(schema[1]) if schema else -1,
        asyncapi=str(asyncapi["info"]["version"]),
        image_tag=tag[1] if tag else "",
    )


def changelog_section(text: str, version: str) -> str | None:
    """The body of CHANGELOG.md's ``## [version] - YYYY-MM-DD`` section, or None."""
    found = re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}\n(.*?)(?=^## |\Z)", text,
                      re.MULTILINE | re.DOTALL)  # fmt: skip
    return found[1] if found else None


def problems(root: Path = ROOT) -> list[str]:
    """Why this checkout cannot be released as it is: one line each; empty when it can."""
    v = versions(root)
    out: list[str] = []
    for name, version in (("showdown-service", v.service), ("showdown-messages", v.contract)):
        if not SEMVER.fullmatch(version):
            out.append(f"{name} {version!r} is not MAJOR.MINOR.PATCH")
    if v.service_module != v.service:
        out.append(f"showdown_service.__version__ is {v.service_module}, pyproject.toml says {v.service}")
    if v.contract_module != v.contract:
        out.append(f"showdown_messages.__version__ is {v.contract_module}, shared/pyproject.toml says {v.contract}")
    if v.contract.split(".")[0] != str(v.schema_version):
        out.append(f"showdown-messages {v.contract}: its major must be the schema_version it speaks, "
                   f"{v.schema_version} (SCHEMA_VERSION)")  # fmt: skip
    if v.asyncapi != v.contract:
        out.append(f"shared/schemas/asyncapi.json says version {v.asyncapi}, the contract is {v.contract}: "
                   "make schema")  # fmt: skip
    if v.image_tag != v.service:
        out.append(f"deploy/k8s/kustomization.yaml's image tag is {v.image_tag}, the release {v.service}")
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8") if (root / "CHANGELOG.md").exists() else ""
    if not re.search(r"^## \[Unreleased\]$", changelog, re.MULTILINE):
        out.append("CHANGELOG.md has no '## [Unreleased]' section")
    section = changelog_section(changelog, v.service)
    if section is None:
        out.append(f"CHANGELOG.md has no '## [{v.service}] - YYYY-MM-DD' section")
    elif f"showdown-messages {v.contract}" not in section:
        out.append(f"CHANGELOG.md's {v.service} section does not name the contract it ships "
                   f"('showdown-messages {v.contract}')")  # fmt: skip
    return out


def _run(command: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
         stdin: str | None = None, timeout: float = STEP_TIMEOUT_S) -> str:  # fmt: skip
    """Run a command; its output, or SystemExit with what it said (or that it took longer than ``timeout``)."""
    try:
        done = subprocess.run(command, cwd=cwd, env=env, input=stdin, capture_output=True, text=True,  # noqa: S603
                              timeout=timeout, check=False)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise SystemExit(f"release: {' '.join(command)} took more than {timeout:g} s") from exc
    if done.returncode != 0:
        raise SystemExit(f"release: {' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout


def commit_epoch(root: Path = ROOT) -> str:
    """The last commit's time (seconds since 1970): SOURCE_DATE_EPOCH of the build."""
    return _run(["git", "-C", str(root), "log", "-1", "--format=%ct"]).strip()


def build_one(name: str, out: Path, root: Path = ROOT) -> list[Path]:
    """An sdist and a wheel of one package into ``out``."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": commit_epoch(root)}
    _run([sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(out),
          str(root / PACKAGES[name].relative_to(ROOT))], env=env)  # fmt: skip
    built = sorted(out.iterdir())
    if sorted(p.suffix for p in built) != [".gz", ".whl"]:
        raise SystemExit(f"release: {name} built {[p.name for p in built]}, not one sdist and one wheel")
    return built


def build(out: Path, root: Path = ROOT) -> dict[str, list[Path]]:
    """An sdist and a wheel of each package into ``out/<name>/``, by distribution name."""
    return {name: build_one(name, out / name, root) for name in PACKAGES}


def twine_check(files: list[Path]) -> str:
    return _run([sys.executable, "-m", "twine", "--no-color", "check", "--strict", *map(str, files)])


SMOKE = """
import importlib, importlib.metadata as md, json, pathlib, re, sys
name, module, event = sys.argv[1], sys.argv[2], sys.argv[3]
where = pathlib.Path(importlib.import_module(module).__file__).resolve()
dist = md.distribution(name)
installed = {}
for found in md.distributions():
    installed.setdefault(re.sub(r"[-_.]+", "-", found.metadata["Name"]).lower(), found.version)
from showdown_messages import SCHEMA_VERSION, ShowdownEvent, __version__
parsed = ShowdownEvent.model_validate_json(event)
print(json.dumps({"module": str(where), "metadata": str(pathlib.Path(str(dist.locate_file(""))).resolve()),
                  "version": dist.version, "contract": __version__, "schema_version": SCHEMA_VERSION,
                  "event_schema_version": parsed.schema_version, "hand_id": parsed.hand_id, "installed": installed}))
"""
"""Run by the new virtualenv's Python (isolated: no checkout, no PYTHONPATH on its path): where the package and its
metadata were found, the contract's versions, the event it validated, and every distribution it can see."""


def unmet(wheel: Path, installed: dict[str, str]) -> list[str]:
    """The requirements of ``wheel``'s metadata (its extras aside) that ``installed`` does not meet."""
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode("utf-8")
    out = []
    for line in re.findall(r"^Requires-Dist: (.+)$", text, re.MULTILINE):
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        have = installed.get(canonicalize_name(requirement.name))
        if have is None or not requirement.specifier.contains(have, prereleases=True):
            out.append(f"{requirement} (installed: {have})")
    return out


def _site_packages(venv: Path) -> Path:
    (found,) = (venv / "lib").glob("python3*/site-packages")
    return found


def smoke(wheel: Path, name: str, module: str, work: Path, *, deps_from: Path | None = None,
          constraints: Path = ROOT / "constraints.txt") -> dict[str, Any]:  # fmt: skip
    """Install ``wheel`` into a new virtualenv under ``work`` and try it there (module docstring, step 4).

    ``deps_from`` (``--offline``, and the tests): the dependencies are not installed but read from that
    site-packages directory, added to the new virtualenv's path by a ``.pth`` line (after its own site-packages,
    and without running that directory's own ``.pth`` files: the checkout's editable install stays out). The
    wheel alone is installed (``--no-deps --ignore-installed``: a copy of the package in ``deps_from`` is
    neither used nor touched), then every requirement the wheel's metadata names is checked as met. Without it,
    pip resolves and installs the dependencies from the index, held to constraints.txt.
    """
    venv = work / f"venv-{name}"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    if deps_from is not None:
        (_site_packages(venv) / "zz-release-deps.pth").write_text(f"{deps_from}\n", encoding="utf-8")
        _run([*pip, "install", "--no-index", "--no-deps", "--ignore-installed", "--no-compile", str(wheel)])
    else:
        _run([*pip, "install", "--constraint", str(constraints), "--find-links", str(wheel.parent), str(wheel)])
    site = _site_packages(venv).resolve()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}
    shown: dict[str, Any] = json.loads(_run([str(python), "-I", "-c", SMOKE, name, module, json.dumps(EVENT)],
                                            cwd=work, env=env))  # fmt: skip
    wrong = [f"{what} found at {shown[what]}, not in the new virtualenv's {site}"
             for what in ("module", "metadata") if not Path(shown[what]).is_relative_to(site)]  # fmt: skip
    wrong += [f"needs {need}" for need in unmet(wheel, shown["installed"])]
    if int(shown["contract"].split(".")[0]) != shown["schema_version"] or shown["event_schema_version"] != 1:
        wrong.append(f"contract {shown['contract']} speaks schema_version {shown['schema_version']}")
    if name == "showdown-service":
        settled = _run([str(venv / "bin" / "showdown"), "adjudicate", "--summary", "-"], stdin=json.dumps(EVENT),
                       cwd=work, env=env)  # fmt: skip
        shown["settled"] = settled.strip()
    if wrong:
        raise SystemExit(f"release: {wheel.name} in a new virtualenv: " + "; ".join(wrong))
    del shown["installed"]
    return shown


def image_command(v: Versions, revision: str, created: str) -> list[str]:
    """The image's build, with the OCI labels' values (deploy/Dockerfile's ARGs) for this release."""
    return ["docker", "build", "--file", "deploy/Dockerfile",
            "--build-arg", f"VERSION={v.service}", "--build-arg", f"CONTRACT_VERSION={v.contract}",
            "--build-arg", f"REVISION={revision}", "--build-arg", f"CREATED={created}",
            "--tag", f"{IMAGE}:{v.service}", "."]  # fmt: skip


def sha256sums(files: list[Path], out: Path) -> Path:
    lines = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(out)}" for p in sorted(files)]
    target = out / "SHA256SUMS"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/release.py", description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where the files go (default dist/)")
    parser.add_argument("--offline", action="store_true",
                        help="try the wheels with this virtualenv's dependencies, fetching nothing")  # fmt: skip
    parser.add_argument("--image", action="store_true", help="also build the image (needs docker)")
    parser.add_argument("--allow-dirty", action="store_true", help="build from a tree with uncommitted changes")
    args = parser.parse_args(argv)
    found = problems()
    dirty = _run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"]).strip()
    if dirty and not args.allow_dirty:
        found.append("uncommitted changes: a release is built from a commit (--allow-dirty to try anyway)")
    if found:
        print("release: not releasable:\n" + "\n".join(f"  - {p}" for p in found), file=sys.stderr)
        return 1
    v = versions()
    out: Path = args.out.resolve()
    if out.exists() and any(out.iterdir()):
        print(f"release: {out} is not empty: remove it first", file=sys.stderr)
        return 1
    built = build(out)
    files = [p for paths in built.values() for p in paths]
    print(twine_check(files), end="")
    deps = Path(sysconfig.get_paths()["purelib"]) if args.offline else None
    with tempfile.TemporaryDirectory(prefix="showdown-release-") as work:
        for name, module in (("showdown-messages", "showdown_messages"), ("showdown-service", "showdown_service")):
            (wheel,) = [p for p in built[name] if p.suffix == ".whl"]
            tried = smoke(wheel, name, module, Path(work), deps_from=deps)
            print(f"tried {wheel.name} in a new virtualenv: {tried}")
    sums = sha256sums(files, out)
    revision = _run(["git", "-C", str(ROOT), "rev-parse", "HEAD"]).strip()
    created = datetime.fromtimestamp(int(commit_epoch()), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    image = image_command(v, revision, created)
    if args.image:
        _run(image, cwd=ROOT, timeout=3600)  # every dependency's wheel fetched and installed: slower than a step
    print(f"\nshowdown-service {v.service} (contract showdown-messages {v.contract}, schema_version "
          f"{v.schema_version}) in {out}, checksums in {sums.name}. To publish (docs/release.md):\n"
          f"  git tag -a v{v.service} -m 'showdown {v.service}' {revision} && git push origin v{v.service}\n"
          f"  twine upload {out}/*/*\n"
          f"  {' '.join(image)}{'   (built)' if args.image else ''}\n"
          f"  docker push <registry>/{IMAGE}:{v.service}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
