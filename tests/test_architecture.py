"""The core stays pure: no I/O, no service code, no clocks."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.helpers import REPO

CORE = REPO / "worker" / "showdown_core"
FORBIDDEN = {
    "asyncio", "http", "io", "json", "logging", "orjson", "pathlib", "prometheus_client", "pydantic",
    "pydantic_core", "random", "redis", "showdown_messages", "showdown_service", "socket", "structlog",
    "subprocess", "time", "urllib",
}  # fmt: skip
"""The core shares only the dependency-free ``showdown_rules`` with the contract, never pydantic."""


def imported_modules(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_the_core_imports_nothing_that_does_io() -> None:
    for path in CORE.glob("*.py"):
        assert not imported_modules(path.read_text(encoding="utf-8")) & FORBIDDEN, path.name


def test_importing_the_core_loads_no_io_library() -> None:
    probe = (
        "import sys, showdown_core, showdown_core.batch, showdown_core.variants as v;"
        "[v.VARIANTS[name] for name in v.VARIANT_SHAPES];"  # every ranking module loaded too
        "print(' '.join(sorted(sys.modules)))"
    )
    loaded = set(
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    )
    assert not loaded & {
        "redis", "structlog", "orjson", "showdown_service", "prometheus_client", "pydantic", "showdown_messages"
    }  # fmt: skip


def test_the_rules_shared_with_the_contract_depend_on_nothing() -> None:
    for path in (REPO / "shared" / "showdown_rules").glob("*.py"):
        imported = imported_modules(path.read_text(encoding="utf-8"))
        assert imported <= {"__future__", "collections", "types", "typing", "showdown_rules"}, path.name
