"""The core stays pure: no I/O, no service code, no clocks; and no module imports itself back through others."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

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


def _module_imports(roots: tuple[Path, ...]) -> dict[str, set[str]]:
    """Each module of ``roots`` -> the modules of ``roots`` it imports anywhere (a deferred or a type-checking
    import included: each is a circle the day it moves to the top of the file)."""
    files: dict[str, Path] = {}
    for root in roots:
        for path in root.rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.update(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in files else node.module
                             for a in node.names)  # fmt: skip
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = {module for module in found if module in files and module != name}
    return graph


def _a_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One chain of imports that comes back to where it started, if any (depth first, bounded by the graph)."""
    done: set[str] = set()
    for start in sorted(graph):
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        path.append(start)
        on_path.add(start)
        while stack:
            _, todo = stack[-1]
            if not todo:
                finished, _ = stack.pop()
                path.pop()
                on_path.discard(finished)
                done.add(finished)
                continue
            following = todo.pop()
            if following in on_path:
                return [*path[path.index(following) :], following]
            if following not in done:
                stack.append((following, sorted(graph[following])))
                path.append(following)
                on_path.add(following)
    return None


def test_no_module_imports_itself_back_through_others() -> None:
    graph = _module_imports((REPO / "worker", REPO / "shared"))
    assert "showdown_service.cli.commands" in graph["showdown_service.cli.launch"], "the graph sees a deferred import"
    assert _a_circle(graph) is None, " -> ".join(_a_circle(graph) or [])


def test_the_circle_finder_finds_a_circle() -> None:
    assert _a_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _a_circle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


NO_REDIS = (
    "showdown_service.decision.decide",
    "showdown_service.decision.settling",
    "showdown_service.decision.audit",
    "showdown_core.tournament",
    "showdown_messages.protocol",
)
"""The decision step, what it stands on and the tournament rules: every replay runs them without a server, so they
load no redis-py."""
NO_PYDANTIC = ("showdown_core", "showdown_core.tournament", "showdown_core.tournament_messages", "showdown_core.batch")
"""The rules (tournament rules included) and the rest of the core take core values only: the contract converts at
the edge, so they load no pydantic either."""


def _loaded_by(module: str) -> set[str]:
    probe = f"import sys, {module}; print(' '.join(sorted(sys.modules)))"
    return set(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split())


def _of(loaded: set[str], package: str) -> set[str]:
    return {name for name in loaded if name == package or name.startswith(f"{package}.")}


def test_the_decision_step_and_the_rules_load_no_redis_client() -> None:
    for module in NO_REDIS:
        loaded = _loaded_by(module)
        assert module in loaded, "the probe imported it"
        assert not _of(loaded, "redis"), module


def test_the_rules_and_the_core_load_no_pydantic() -> None:
    for module in NO_PYDANTIC:
        loaded = _loaded_by(module)
        assert module in loaded, "the probe imported it"
        assert not _of(loaded, "pydantic") | _of(loaded, "pydantic_core") | _of(loaded, "showdown_messages"), module


LONG_MODULE_REASON = "400 lines"
"""What a long module's docstring says, with why ("Why over 400 lines: ...", "Over 400 lines, deliberately: ...")."""


def test_no_module_of_the_shell_is_over_400_lines_without_a_reason_at_its_top() -> None:
    for root in (REPO / "worker" / "showdown_service", REPO / "shared" / "showdown_messages"):
        for path in root.rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if text.count("\n") > 400:
                docstring = ast.get_docstring(ast.parse(text)) or ""
                assert LONG_MODULE_REASON in docstring, f"{path.relative_to(REPO)}: {text.count(chr(10))} lines"


SERVICE = REPO / "worker" / "showdown_service"
MAY_IMPORT: dict[str, frozenset[str]] = {
    "infra": frozenset(),
    "ops": frozenset({"infra"}),
    "decision": frozenset({"infra"}),
    "storage": frozenset({"infra"}),
    "worker": frozenset({"infra", "ops", "decision", "storage"}),
    "archive": frozenset({"infra", "ops", "decision", "storage", "worker"}),
    "read": frozenset({"infra", "ops", "decision", "storage", "worker", "archive"}),
    "histories": frozenset({"infra", "ops", "decision", "storage", "worker", "archive"}),
    "api": frozenset({"infra", "ops", "decision", "storage", "worker", "archive", "read", "histories"}),
    "testing": frozenset({"infra", "ops", "decision", "storage", "worker", "archive", "read", "histories"}),
    "cli": frozenset({"infra", "ops", "decision", "storage", "worker", "archive", "read", "histories", "api",
                      "testing"}),
}  # fmt: skip
"""The layers of docs/architecture.md: each package of the service and the packages it may import (its own, the
contract, the core and the package's root ``showdown_service`` always). ``ops``, ``decision`` and ``storage`` are
siblings on ``infra``; so are ``read`` and ``histories``, and ``api`` and ``testing``."""


def _package_of(module: str) -> str | None:
    """The layer a module of the service is in (``None``: not a package of the service, or its root modules)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "showdown_service" and len(parts) > 2 else None


def _crossings(graph: dict[str, set[str]]) -> list[str]:
    """Each import from a package of the service into one it may not import (a layer above, or a sibling)."""
    found = []
    for module, imported in sorted(graph.items()):
        package = _package_of(module)
        if package is None:
            continue
        for target in sorted(imported):
            below = _package_of(target)
            if below is not None and below != package and below not in MAY_IMPORT[package]:
                found.append(f"{module} -> {target}")
    return found


def test_the_service_is_packages_with_nothing_loose_but_its_entry_points() -> None:
    assert sorted(p.name for p in SERVICE.glob("*.py")) == ["__init__.py", "__main__.py"]
    packages = sorted(p.name for p in SERVICE.iterdir() if (p / "__init__.py").exists())
    assert packages == sorted(MAY_IMPORT), "every package is a layer of docs/architecture.md"


def test_each_package_imports_only_the_packages_below_it() -> None:
    crossings = _crossings(_module_imports((REPO / "worker", REPO / "shared")))
    assert not crossings, "\n".join(crossings)


def test_the_layer_test_finds_an_import_upwards_and_one_between_siblings() -> None:
    graph = {
        "showdown_service.decision.decide": {"showdown_service.worker.commit", "showdown_service.infra.config"},
        "showdown_service.ops.metrics": {"showdown_service.storage.layout"},
        "showdown_service.cli.stream": {"showdown_service.worker.loop"},
        "showdown_service.__main__": {"showdown_service.cli.launch"},
    }
    assert _crossings(graph) == [
        "showdown_service.decision.decide -> showdown_service.worker.commit",
        "showdown_service.ops.metrics -> showdown_service.storage.layout",
    ]


def test_nothing_under_decision_loads_redis_py() -> None:
    """A folder rule, not a list: every module of ``decision/`` (a replay runs them all without a server)."""
    modules = sorted(
        ".".join(("showdown_service", "decision", p.stem))
        for p in (SERVICE / "decision").glob("*.py")
        if p.stem != "__init__"
    )
    assert len(modules) >= 8
    probe = f"import sys, {', '.join(modules)}; print(' '.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    )
    assert set(modules) <= loaded
    assert not _of(loaded, "redis"), _of(loaded, "redis")


def test_the_read_api_loads_neither_the_worker_loop_nor_the_commit() -> None:
    loaded = _loaded_by("showdown_service.api.app")
    assert "showdown_service.api.app" in loaded
    assert not {"showdown_service.worker.loop", "showdown_service.worker.commit"} & loaded
    assert not _of(loaded, "showdown_service.cli")


def test_every_path_to_the_shared_data_is_the_repository_s_sibling() -> None:
    """``../shared/data`` is beside the repository, wherever the clone is: a ``Path(__file__).parents[N]`` one level
    too high passed in a worktree two levels deep and failed CI's clone (stop 44: ``/check/shared/data`` missing).
    Tests use ``tests.helpers.SHARED_DATA``; every other ``parents[N] / "shared"`` must name the repository's parent."""
    import re

    pattern = re.compile(r"parents\[(\d+)\]\s*/\s*\"shared\"")
    wrong = [
        f"{path.relative_to(REPO)}: parents[{level}]"
        for folder in ("tests", "bench", "scripts", "worker")
        for path in (REPO / folder).rglob("*.py")
        for level in pattern.findall(path.read_text(encoding="utf-8"))
        if path.resolve().parents[int(level)] != REPO.resolve().parent
    ]
    assert wrong == []


TEST_FOLDERS = {
    "core": "worker/showdown_core",
    "contract": "shared/showdown_messages",
    "decision": "worker/showdown_service/decision",
    "worker": "worker/showdown_service/worker",
    "archive": "worker/showdown_service/archive",
    "read": "worker/showdown_service/read",
    "histories": "worker/showdown_service/histories",
    "api": "worker/showdown_service/api",
    "cli": "worker/showdown_service/cli",
    "ops": "worker/showdown_service/ops",
    "deploy": "deploy",
    "project": ".",
}
"""Each folder of tests/ and what it tests: the packages of the tree, the deployment files, the project whole."""


def test_the_tests_are_grouped_as_the_packages_are() -> None:
    """Issue 35 item 6: a test module sits in the folder of what it tests (tests/<folder>/test_*.py), none loose at
    tests/'s top, where only the shared helpers and fixtures are; each folder a package (its ``__init__.py``), so two
    folders may hold modules of one name."""
    tests = REPO / "tests"
    assert sorted(p.name for p in tests.glob("test_*.py")) == [], "a test module belongs in the folder it tests"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and p.name not in {"fixtures", "__pycache__"}}
    assert folders == set(TEST_FOLDERS), folders ^ set(TEST_FOLDERS)
    for name, tested in TEST_FOLDERS.items():
        assert (tests / name / "__init__.py").is_file(), name
        assert any((tests / name).glob("test_*.py")), f"tests/{name}/ holds no test"
        assert (REPO / tested).exists(), tested


HAND_LOOKUP = re.compile(r"\bfind_hand\b|\bfind_archived\b|\"hand_id\":(?:'|\{)|get\(\"hand_id\"\)\s*[!=]=")
"""The marks of looking a hand up: the archive's hand finders, the JSON text a stream scan looks for, an entry's
``hand_id`` compared with the one asked."""
STANDINGS_LOOKUP = re.compile(r"\bread_book\(|\barchived_standings\(|\bregistry_key\(")
"""The marks of looking standings up: a ledger read from Redis, an expired one's places from the archive, the
registry asked for a tournament's shard."""


def _marked(pattern: re.Pattern[str], allowed: tuple[str, ...]) -> list[str]:
    """The service's modules outside the ``allowed`` packages (or modules) whose source has ``pattern``."""
    found = []
    for path in sorted(SERVICE.rglob("*.py")):
        name = path.relative_to(SERVICE).as_posix()
        if not name.startswith(allowed) and pattern.search(path.read_text(encoding="utf-8")):
            found.append(name)
    return found


def test_a_hand_is_looked_up_by_the_read_side_alone() -> None:
    """Issue 35: one hand lookup (``read/hands.py``, the API's live index ``read/index.py``): no module outside
    ``read/`` and ``storage/`` finds a hand in the archive or scans a stream for a hand id; the API, ``showdown
    hand``, ``showdown proof`` and the requeue import the read side's lookup."""
    assert _marked(HAND_LOOKUP, ("read/", "storage/")) == []
    graph = _module_imports((REPO / "worker", REPO / "shared"))
    lookup = {"showdown_service.read.hands", "showdown_service.read.index"}
    for user in ("api.index", "api.archive", "api.replay", "api.log", "cli.archive", "cli.proof", "read.requeue"):
        assert graph[f"showdown_service.{user}"] & lookup, user


def test_standings_and_results_are_read_by_the_read_side_alone() -> None:
    """Issue 35: one standings lookup (``read/standings.py``) and one results filter (``read/pages.py``), each
    used by the read API and the command line: nothing above the read side reads a ledger or asks the registry."""
    below = ("infra/", "ops/", "decision/", "storage/", "worker/", "archive/", "read/")  # where ledgers are kept
    assert _marked(STANDINGS_LOOKUP, below) == []
    graph = _module_imports((REPO / "worker", REPO / "shared"))
    for user in ("api.state", "cli.tournament"):
        assert "showdown_service.read.standings" in graph[f"showdown_service.{user}"], user
    for user in ("api.pages", "cli.results"):
        assert "showdown_service.read.pages" in graph[f"showdown_service.{user}"], user


def test_the_lookup_rules_find_a_scan_outside_the_read_side() -> None:
    scans = (
        "needle = f'\"hand_id\":{orjson.dumps(hand_id).decode()}'.encode()",
        "needle = b'\"hand_id\":' + orjson.dumps(hand_id)",
        "found = find_hand(url, hand_id)",
        'if result.get("hand_id") != hand_id:',
    )
    assert all(HAND_LOOKUP.search(line) for line in scans)
    assert not HAND_LOOKUP.search('return {"hand_id": hand_id, **document}')
    assert STANDINGS_LOOKUP.search("book = read_book(client, keys, tournament_id)")


def test_stream_entry_ids_are_parsed_in_one_place() -> None:
    """Issue 35's done-when: "the entry-id parser is in one place": ``showdown_messages.protocol`` (``entry_order``,
    ``parse_entry_id`` for ids a client sends, ``next_entry_id``, ``entry_ms``, ``is_range_id``); no other module of
    worker/ or shared/ splits an id at its dash (the test servers' slot ranges ``low-high`` are no entry ids)."""
    allowed = {"shared/showdown_messages/protocol.py", "worker/showdown_service/testing/localredis.py"}
    splitting = re.compile(r"""\.(?:r?partition|r?split)\(b?["']-["']""")
    found = [
        path.relative_to(REPO).as_posix()
        for folder in ("worker", "shared")
        for path in sorted((REPO / folder).rglob("*.py"))
        if path.relative_to(REPO).as_posix() not in allowed and splitting.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
