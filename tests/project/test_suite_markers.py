"""The suites' markers (``make test-quick``, ``pytest -m``): each test carries what its module starts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import pytest_collection_modifyitems
from tests.helpers import REPO


@dataclass
class _Item:
    fspath: Path
    fixturenames: list[str] = field(default_factory=list)
    marks: set[str] = field(default_factory=set)

    def add_marker(self, mark: str) -> None:
        self.marks.add(mark)


def marks_of(module: str, fixtures: tuple[str, ...] = ()) -> set[str]:
    (path,) = (REPO / "tests").glob(f"*/{module}.py")
    item = _Item(path, list(fixtures))
    pytest_collection_modifyitems([item])  # type: ignore[list-item]
    return item.marks


def test_a_pure_module_carries_no_suite_marker() -> None:
    assert marks_of("test_betting") == set()


def test_a_test_on_the_session_s_server_is_a_server_test_even_in_a_module_that_starts_none() -> None:
    assert marks_of("test_betting", ("client", "redis_url", "redis_server")) == {"server"}


def test_a_cluster_module_is_a_cluster_and_a_server_test() -> None:
    assert {"cluster", "server"} <= marks_of("test_cluster")


def test_deployment_browser_and_slow_modules_carry_their_markers() -> None:
    assert "deploy" in marks_of("test_deploy_k8s")
    assert "browser" in marks_of("test_floor_page")
    assert "slow" in marks_of("test_redis_loss_e2e")


def test_every_marker_the_hook_gives_is_registered(pytestconfig: pytest.Config) -> None:
    registered = {line.split(":")[0] for line in pytestconfig.getini("markers")}
    assert {"server", "cluster", "deploy", "browser", "slow"} <= registered


def test_every_module_named_deploy_or_slow_exists() -> None:
    from tests.conftest import DEPLOY, SLOW

    modules = {path.stem for path in (REPO / "tests").glob("*/test_*.py")}
    assert set(SLOW) <= modules
    assert all(any(module.startswith(prefix) for module in modules) for prefix in DEPLOY)
