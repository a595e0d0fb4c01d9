"""Code written once, functions short (issue 35): no function of ``worker/`` or ``shared/`` is over 120 lines, and no
two hand history modules define the same pattern or table (``histories/patterns.py`` holds the ones the rooms share)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO

LONGEST = 120
"""The most lines a function of the service, the core or the contract may span (its decorators not counted)."""
HISTORIES = REPO / "worker" / "showdown_service" / "histories"


def _functions(root: Path) -> list[tuple[int, str]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                lines = node.end_lineno - node.lineno + 1
                found.append((lines, f"{path.relative_to(REPO)}:{node.lineno} {node.name}"))
    return found


def test_no_function_of_worker_or_shared_is_over_120_lines() -> None:
    long = sorted((f for root in ("worker", "shared") for f in _functions(REPO / root) if f[0] > LONGEST), reverse=True)
    assert not long, f"over {LONGEST} lines (cut them into their steps): {long}"


def _constants(path: Path) -> dict[str, str]:
    """A module's top-level patterns and tables written as literals (``re.compile`` of constants, a dict of
    constants), by their text: what two readers would write twice."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        compiled = (
            isinstance(value, ast.Call)
            and ast.unparse(value.func) == "re.compile"
            and all(isinstance(a, ast.Constant) for a in value.args)
        )
        table = (
            isinstance(value, ast.Dict)
            and len(value.keys) > 1
            and all(isinstance(part, ast.Constant) for part in [*value.keys, *value.values])
        )
        if compiled or table:
            found[ast.unparse(value)] = f"{path.name}: {ast.unparse(target)}"
    return found


def test_no_two_history_modules_define_the_same_pattern_or_table() -> None:
    seen: dict[str, str] = {}
    twice = []
    for path in sorted(HISTORIES.glob("*.py")):
        for text, where in _constants(path).items():
            if text in seen:
                twice.append(f"{seen[text]} and {where}: {text}")
            seen.setdefault(text, where)
    assert not twice, f"written twice (share it from histories/patterns.py): {twice}"
