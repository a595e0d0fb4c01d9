"""Releases (docs/release.md): every version of the checkout agrees and each check of `make release` catches its
disagreement; CHANGELOG.md keeps a changelog; both packages build, pass `twine check`, and work from new
virtualenvs (offline: the dependencies read from this one); the image's OCI labels take the release's values."""

from __future__ import annotations

import re
import shutil
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

import showdown_messages
import showdown_service
from scripts import release
from showdown_rules import SCHEMA_VERSION
from tests.deploy.test_deploy_image import DOCKERFILE, parse_dockerfile
from tests.helpers import REPO

VERSIONED = (
    "pyproject.toml", "shared/pyproject.toml", "worker/showdown_service/__init__.py",
    "shared/showdown_messages/__init__.py", "shared/showdown_rules/limits.py", "shared/schemas/asyncapi.json",
    "deploy/k8s/kustomization.yaml", "CHANGELOG.md",
)  # fmt: skip
"""Every file a version is written in (what :func:`release.problems` reads)."""


def pyproject(directory: Path = REPO) -> dict[str, object]:
    project: dict[str, object] = tomllib.loads((directory / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project


def test_every_version_of_the_checkout_agrees_and_the_contract_s_major_is_its_schema_version() -> None:
    assert release.problems(REPO) == []
    v = release.versions(REPO)
    assert v.service == pyproject()["version"] == showdown_service.__version__
    assert v.contract == pyproject(REPO / "shared")["version"] == showdown_messages.__version__
    assert int(showdown_messages.__version__.split(".")[0]) == SCHEMA_VERSION == v.schema_version
    assert v.image_tag == v.service, "the Kubernetes base runs this release's image"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the files the versions live in."""
    for name in VERSIONED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    assert release.problems(tmp_path) == []
    return tmp_path


def _edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    text = path.read_text(encoding="utf-8")
    assert old in text, (name, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


V = release.versions(REPO)
MISMATCHES = [
    ("pyproject.toml", f'version = "{V.service}"', 'version = "9.9.9"', "pyproject.toml says 9.9.9"),
    ("worker/showdown_service/__init__.py", f'"{V.service}"', '"9.9.9"', "showdown_service.__version__ is 9.9.9"),
    ("shared/pyproject.toml", f'version = "{V.contract}"', 'version = "1.99"', "'1.99' is not MAJOR.MINOR.PATCH"),
    ("shared/showdown_messages/__init__.py", f'"{V.contract}"', '"1.0.1"', "showdown_messages.__version__ is 1.0.1"),
    ("shared/showdown_rules/limits.py", "SCHEMA_VERSION: Final = 1", "SCHEMA_VERSION: Final = 2",
     "its major must be the schema_version it speaks, 2"),
    ("shared/schemas/asyncapi.json", f'"version": "{V.contract}"', '"version": "0.1.0"', "make schema"),
    ("deploy/k8s/kustomization.yaml", f"newTag: {V.service}", "newTag: latest", "image tag is latest"),
    ("CHANGELOG.md", "## [Unreleased]", "## Unreleased", "no '## [Unreleased]' section"),
    ("CHANGELOG.md", f"## [{V.service}] - ", f"## [{V.service}] ", f"no '## [{V.service}] - YYYY-MM-DD' section"),
    ("CHANGELOG.md", f"showdown-messages {V.contract}", "showdown-messages", "does not name the contract it ships"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "old", "new", "said"), MISMATCHES, ids=[f"{m[0]}:{m[3]}" for m in MISMATCHES])
def test_each_check_of_make_release_catches_its_disagreement(
    checkout: Path, name: str, old: str, new: str, said: str
) -> None:
    _edit(checkout, name, old, new)
    found = release.problems(checkout)
    assert found, f"{name}: {old!r} -> {new!r} went unseen"
    assert any(said in problem for problem in found), found


def test_the_changelog_keeps_a_changelog() -> None:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    assert "keepachangelog.com/en/1.1.0" in text
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings[0] == "[Unreleased]", "the newest first: what is not released yet"
    released = [re.fullmatch(r"\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})", h) for h in headings[1:]]
    assert released, "at least one release"
    assert all(released), headings
    versions = [tuple(int(n) for n in m[1].split(".")) for m in released if m]
    dates = [m[2] for m in released if m]
    assert versions == sorted(versions, reverse=True), "newest first"
    assert dates == sorted(dates, reverse=True)
    kinds = set(re.findall(r"^### (.+)$", text, re.MULTILINE))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kinds
    for match in released:
        assert match is not None
        assert "showdown-messages " in (release.changelog_section(text, match[1]) or ""), match[1]


def test_both_packages_build_pass_twine_check_and_work_from_new_virtualenvs_offline(tmp_path: Path) -> None:
    """`make release --offline`'s steps 2-4 on this checkout: nothing is fetched (the build backend is this
    virtualenv's, the new virtualenvs read its dependencies), each step within its own time limit."""
    built = release.build(tmp_path / "dist")
    v = release.versions()
    names = {name: sorted(p.name for p in paths) for name, paths in built.items()}
    assert names == {
        "showdown-service": [f"showdown_service-{v.service}-py3-none-any.whl", f"showdown_service-{v.service}.tar.gz"],
        "showdown-messages": [f"showdown_messages-{v.contract}-py3-none-any.whl",
                              f"showdown_messages-{v.contract}.tar.gz"],
    }  # fmt: skip
    files = [p for paths in built.values() for p in paths]
    checked = release.twine_check(files)
    assert checked.count("PASSED") == 4, checked
    wheels = {name: next(p for p in paths if p.suffix == ".whl") for name, paths in built.items()}
    with zipfile.ZipFile(wheels["showdown-messages"]) as contract:
        top = {n.split("/")[0] for n in contract.namelist()}
    assert top == {"showdown_messages", "showdown_rules", f"showdown_messages-{v.contract}.dist-info"}
    with zipfile.ZipFile(wheels["showdown-service"]) as service:
        held = set(service.namelist())
    assert {"showdown_messages/__init__.py", "showdown_core/__init__.py", "showdown_service/api/floor.html",
            "showdown_service/data/showdowns.jsonl"} <= held, "the contract and the service's data inside"  # fmt: skip

    again = release.build_one("showdown-messages", tmp_path / "again")
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in sorted(built["showdown-messages"])], (
        "one commit builds the same bytes (SOURCE_DATE_EPOCH)"
    )

    deps = Path(sysconfig.get_paths()["purelib"])
    contract_tried = release.smoke(wheels["showdown-messages"], "showdown-messages", "showdown_messages", tmp_path,
                                   deps_from=deps)  # fmt: skip
    service_tried = release.smoke(wheels["showdown-service"], "showdown-service", "showdown_service", tmp_path,
                                  deps_from=deps)  # fmt: skip
    for name, tried in (("showdown-messages", contract_tried), ("showdown-service", service_tried)):
        venv = tmp_path / f"venv-{name}"
        assert Path(tried["module"]).is_relative_to(venv.resolve()), tried["module"]
        assert not Path(tried["module"]).is_relative_to(REPO), "the new install, never the checkout"
        assert (tried["contract"], tried["schema_version"], tried["hand_id"]) == (v.contract, SCHEMA_VERSION,
                                                                                  "release-smoke-1")  # fmt: skip
    assert service_tried["version"] == v.service
    assert "ann" in service_tried["settled"], service_tried["settled"]


def test_a_wheel_whose_dependencies_are_not_met_is_refused(tmp_path: Path) -> None:
    wheel = tmp_path / "demo-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("demo-1.0.0.dist-info/METADATA", "Metadata-Version: 2.4\nName: demo\nVersion: 1.0.0\n"
                         "Requires-Dist: pydantic>=2.7,<3\nRequires-Dist: numpy>=99\nRequires-Dist: absent-package\n"
                         "Requires-Dist: pytest; extra == 'dev'\n")  # fmt: skip
    unmet = release.unmet(wheel, {"pydantic": "2.12.0", "numpy": "2.4.6"})
    assert unmet == ["numpy>=99 (installed: 2.4.6)", "absent-package (installed: None)"]


def test_the_image_is_labelled_with_the_values_make_release_gives() -> None:
    _, stages = parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))
    final = stages[-1]
    declared = {arg.split("=")[0] for arg in final.all("ARG")}
    labels = dict(re.findall(r'([\w.-]+)="([^"]*)"', " ".join(final.all("LABEL"))))
    for key in ("version", "revision", "created", "title", "description", "licenses", "base.name"):
        assert f"org.opencontainers.image.{key}" in labels, key
    assert labels["org.opencontainers.image.licenses"] == pyproject()["license"]
    used = {name for value in labels.values() for name in re.findall(r"\$\{(\w+)\}", value)}
    assert used <= declared, f"a label reads an ARG the stage does not declare: {used - declared}"
    v = release.versions()
    command = release.image_command(v, "abc123", "2026-11-28T00:00:00Z")
    given = dict(command[i + 1].split("=", 1) for i, word in enumerate(command) if word == "--build-arg")
    assert given == {"VERSION": v.service, "CONTRACT_VERSION": v.contract, "REVISION": "abc123",
                     "CREATED": "2026-11-28T00:00:00Z"}  # fmt: skip
    assert used - {"PYTHON_IMAGE"} == set(given), "every label's value given by the release"
    assert command[command.index("--file") + 1] == DOCKERFILE.relative_to(REPO).as_posix()
    assert command[command.index("--tag") + 1] == f"showdown-worker:{v.service}"


def test_make_release_runs_the_script_and_its_tools_are_pinned_dev_dependencies(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "\nrelease: $(STAMP)\n\t$(BIN)/python scripts/release.py $(RELEASE_FLAGS)\n" in makefile
    dev = pyproject()["optional-dependencies"]
    assert isinstance(dev, dict)
    pins = dict(line.split("==") for line in (REPO / "constraints.txt").read_text(encoding="utf-8").split()
                if "==" in line)  # fmt: skip
    for tool in ("build", "twine", "hatchling"):
        assert any(re.match(rf"{tool}\b", requirement) for requirement in dev["dev"]), tool
        assert tool in pins, f"{tool} pinned in constraints.txt"
    monkeypatch.setattr(release, "problems", lambda root=REPO: ["a disagreement"])
    assert release.main(["--out", "/nonexistent", "--allow-dirty"]) == 1
    assert "not releasable:\n  - a disagreement" in capsys.readouterr().err
