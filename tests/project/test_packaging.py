"""What `pip install .` and `pip install ./shared` get: the licence they declare, and nothing asked of a package
index under a name this repository builds itself (anyone may publish that name there: dependency confusion)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from tests.helpers import REPO
from tests.project.test_architecture import imported_modules

SERVICE: dict[str, Any] = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACT: dict[str, Any] = tomllib.loads((REPO / "shared" / "pyproject.toml").read_text(encoding="utf-8"))


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503): ``showdown_messages==0.1`` -> ``showdown-messages``."""
    found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert found, requirement
    return re.sub(r"[-_.]+", "-", found[0]).lower()


def _wheel_packages(project: dict[str, Any], root: Path) -> dict[str, Path]:
    """Import name -> source directory of each package the project's wheel holds."""
    return {Path(p).name: root / p for p in project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]}


def test_each_package_ships_the_mit_licence_it_declares_at_its_root() -> None:
    for project, root in ((SERVICE, REPO), (CONTRACT, REPO / "shared")):
        assert project["project"]["license"] == "MIT"
        text = (root / "LICENSE").read_text(encoding="utf-8")
        assert text.startswith("MIT License\n"), root
        assert "Permission is hereby granted, free of charge" in text
    assert (REPO / "LICENSE").read_bytes() == (REPO / "shared" / "LICENSE").read_bytes()


def test_the_service_requires_no_distribution_this_repository_builds_by_name() -> None:
    ours = {_name(SERVICE["project"]["name"]), _name(CONTRACT["project"]["name"])}
    required = {_name(r) for r in SERVICE["project"]["dependencies"]}
    for extra in SERVICE["project"]["optional-dependencies"].values():
        required |= {_name(r) for r in extra} - {_name(SERVICE["project"]["name"])}  # dev names [demo]
    assert required & ours == set(), "a package index would be asked for it: its wheel must hold it instead"


def test_every_package_of_this_repository_the_service_imports_is_in_its_wheel() -> None:
    first_party = set(SERVICE["tool"]["ruff"]["lint"]["isort"]["known-first-party"])
    packaged = _wheel_packages(SERVICE, REPO)
    imported: set[str] = set()
    for source in packaged.values():
        for path in source.rglob("*.py"):
            imported |= imported_modules(path.read_text(encoding="utf-8")) & first_party
    assert {"showdown_messages", "showdown_rules"} <= imported
    assert imported <= packaged.keys(), f"imported but not in the wheel: {sorted(imported - packaged.keys())}"
    contract = _wheel_packages(CONTRACT, REPO / "shared")
    assert all(packaged[name] == path for name, path in contract.items()), "one source of the contract"
