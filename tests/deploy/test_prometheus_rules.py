"""deploy/prometheus/alerts.yml and its Kubernetes twin: generated from one source, checked and unit-tested with
``promtool`` (Debian's prometheus package, which `make test` unpacks into the virtual environment: see the
Makefile), every alert fired by one case and left quiet by another, each with a severity and a runbook that exists.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from scripts import observability
from scripts.docs_hooks import fill
from showdown_service.ops.alert_rules import (
    ALERTS,
    OPEN_TOURNAMENTS,
    RUNBOOK_BASE_URL,
    RUNBOOKS,
    SLOS,
    WINDOWS,
    rule_groups,
)
from tests.helpers import REPO
from tests.project.test_docs import anchors_of, page

PROMETHEUS_DIR = REPO / "deploy" / "prometheus"
RULES = PROMETHEUS_DIR / "alerts.yml"
RULE_TESTS = (PROMETHEUS_DIR / "alerts_test.yml", PROMETHEUS_DIR / "alerts_test_long.yml")
PROMETHEUS_RULE = REPO / "deploy" / "k8s-monitoring" / "prometheusrule.yaml"
PROMETHEUS_BIN = Path(sys.prefix) / "debian-prometheus" / "usr" / "bin"
"""Debian's promtool and prometheus, unpacked by `make test` (the Makefile's $(PROMETHEUS) target)."""


def debian_prometheus(tool: str) -> str:
    """The path of Debian's ``promtool`` or ``prometheus``; failing the test, with what to run, where make has not
    fetched it yet."""
    path = PROMETHEUS_BIN / tool
    if not os.access(path, os.X_OK):
        target = os.path.relpath(PROMETHEUS_BIN / "promtool", REPO)
        pytest.fail(f"no {path}: run `make {target}` (make test does it first)", pytrace=False)
    return str(path)


def promtool(*args: str, cwd: Path = PROMETHEUS_DIR) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [debian_prometheus("promtool"), *args], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_the_committed_rule_files_test_files_and_dashboard_are_exactly_what_the_generator_writes() -> None:
    for path, text in observability.files().items():
        assert path.read_text(encoding="utf-8") == text, f"{path}: run scripts/observability.py"
    assert observability.main(["--check"]) == 0


def test_promtool_checks_the_rule_file_and_the_prometheus_rules_groups(tmp_path: Path) -> None:
    checked = promtool("check", "rules", str(RULES))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {sum(len(g['rules']) for g in load(RULES)['groups'])} rules found" in checked.stdout
    rule = load(PROMETHEUS_RULE)
    assert (rule["apiVersion"], rule["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    assert rule["spec"]["groups"] == load(RULES)["groups"], "the same groups, from one source"
    kustomization = load(PROMETHEUS_RULE.parent / "kustomization.yaml")
    assert kustomization["resources"] == [PROMETHEUS_RULE.name]
    spec = tmp_path / "spec.yml"
    spec.write_text(yaml.safe_dump(rule["spec"]), encoding="utf-8")
    assert promtool("check", "rules", str(spec)).returncode == 0


def test_promtool_refuses_a_rule_with_a_broken_expression(tmp_path: Path) -> None:
    broken = load(RULES)
    broken["groups"][1]["rules"][0]["expr"] = "sum(up{job=}"
    path = tmp_path / "broken.yml"
    path.write_text(yaml.safe_dump(broken), encoding="utf-8")
    checked = promtool("check", "rules", str(path))
    assert checked.returncode == 1
    assert "parse error" in checked.stdout + checked.stderr


def test_promtool_unit_tests_fire_every_alert_once_and_leave_it_quiet_once() -> None:
    tested = promtool("test", "rules", *(p.name for p in RULE_TESTS))
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert tested.stdout.count("SUCCESS") == len(RULE_TESTS)


def test_every_alert_has_a_case_that_fires_it_and_one_that_does_not() -> None:
    fires: dict[str, int] = {}
    quiet: dict[str, int] = {}
    for path in RULE_TESTS:
        for case in load(path)["tests"]:
            for check in case["alert_rule_test"]:
                seen = fires if check["exp_alerts"] else quiet
                seen[check["alertname"]] = seen.get(check["alertname"], 0) + 1
    names = [rule["alert"] for rule in load(RULES)["groups"][1]["rules"]]
    assert len(names) == len(set(names)) == len(ALERTS)
    assert fires == quiet == dict.fromkeys(names, 1)


def test_the_unit_tests_catch_an_alert_whose_threshold_is_wrong(tmp_path: Path) -> None:
    """The cases are not vacuous: with one alert's threshold moved, promtool fails its firing case."""
    changed = load(RULES)
    (rule,) = [r for r in changed["groups"][1]["rules"] if r["alert"] == "ShowdownRedisMemoryHigh"]
    rule["expr"] = rule["expr"].replace("> 0.8", "> 0.95")
    (tmp_path / "alerts.yml").write_text(yaml.safe_dump(changed), encoding="utf-8")
    (tmp_path / "alerts_test.yml").write_text(RULE_TESTS[0].read_text(encoding="utf-8"), encoding="utf-8")
    tested = promtool("test", "rules", "alerts_test.yml", cwd=tmp_path)
    assert tested.returncode == 1
    assert "ShowdownRedisMemoryHigh fires" in tested.stdout + tested.stderr
    assert "ShowdownRedisMemoryHigh stays quiet" not in tested.stdout + tested.stderr


def test_every_alert_has_a_severity_a_summary_and_a_runbook_in_operations_md() -> None:
    anchors = anchors_of("operations.md")
    for rule in load(RULES)["groups"][1]["rules"]:
        assert rule["labels"]["severity"] in ("critical", "warning"), rule["alert"]
        assert rule["annotations"]["summary"], rule["alert"]
        where, _, anchor = rule["annotations"]["runbook_url"].partition("#")
        assert where == RUNBOOK_BASE_URL == "https://showdown.example/operations/", "absolute: Alertmanager opens it"
        assert RUNBOOKS == "docs/operations.md"
        assert anchor in anchors, f"{rule['alert']}: no heading #{anchor} in docs/operations.md"


def test_the_runbook_base_url_is_a_setting_of_the_generator_and_must_be_absolute(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 42 item 6: Alertmanager and Grafana cannot open a relative runbook_url (docs/operations.md#...)."""
    monkeypatch.setenv("SHOWDOWN_RUNBOOK_BASE_URL", "https://wiki.room.example/showdown/operations/")
    written = observability.files()
    rules = yaml.safe_load(written[RULES])["groups"][1]["rules"]
    urls = [rule["annotations"]["runbook_url"] for rule in rules]
    assert all(url.startswith("https://wiki.room.example/showdown/operations/#") for url in urls), urls
    tests = yaml.safe_load(written[RULE_TESTS[0]])["tests"]
    cases = [case for test in tests for case in test["alert_rule_test"]]
    expected = [alert["exp_annotations"]["runbook_url"] for case in cases for alert in case["exp_alerts"]]
    assert expected, "the promtool cases expect the same links"
    assert all(url.startswith("https://wiki.room.example/showdown/operations/#") for url in expected)
    assert observability.main(["--check"]) == 1, "the committed files are written without it"
    for bad in ("docs/operations.md", "/operations/", "ftp://docs.example/ops", "https://docs.example/ops#x"):
        monkeypatch.setenv("SHOWDOWN_RUNBOOK_BASE_URL", bad)
        with pytest.raises(ValueError, match="SHOWDOWN_RUNBOOK_BASE_URL="):
            rule_groups()


def test_operations_md_lists_every_alert_with_its_meaning_and_runbook() -> None:
    text = page("operations.md")
    for alert in ALERTS:
        row = next((line for line in text.splitlines() if line.startswith(f"| `{alert.name}` |")), None)
        assert row is not None, f"{alert.name} is not in docs/operations.md's alert table"
        assert f"(#{alert.runbook})" in row


def test_each_slo_has_its_error_ratio_recorded_over_every_burn_rate_window_and_two_burn_alerts() -> None:
    recorded = {rule["record"] for rule in load(RULES)["groups"][0]["rules"]}
    names = {rule["alert"] for rule in load(RULES)["groups"][1]["rules"]}
    for slo in SLOS:
        assert {f"showdown:{slo.name}:ratio_rate{w}" for w in WINDOWS} <= recorded
        assert {f"ShowdownErrorBudgetBurnFast_{slo.name}", f"ShowdownErrorBudgetBurnSlow_{slo.name}"} <= names
        objective = f"{slo.objective * 100:g}%"
        assert objective in page("operations.md"), f"the objective of {slo.name} ({objective}) is not in the docs"


def test_the_open_tournaments_promql_counts_opened_less_finished_per_shard_a_shard_with_none_finished_too(
    tmp_path: Path,
) -> None:
    """docs/operations.md's stand-in for an open-tournaments gauge, evaluated by promtool on counters as the workers
    export them (at 0 from the start, Metrics.start_shards): shard a opened 3 and finished 1 (across a worker
    restart: the counter resets), shard b opened 2 and finished none."""
    (tmp_path / "none.yml").write_text("groups: []\n", encoding="utf-8")
    opened_a, finished_a = "0 1 2 2 0 1 1 1 1 1 1", "0 0 0 0 0 1 1 1 1 1 1"  # restart at minute 4
    case = {
        "rule_files": ["none.yml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [
                    {"series": 'showdown_tournaments_opened_total{shard="a",instance="w1"}', "values": opened_a},
                    {"series": 'showdown_tournaments_finished_total{shard="a",instance="w1"}', "values": finished_a},
                    {"series": 'showdown_tournaments_opened_total{shard="b",instance="w1"}', "values": "0 1 2 2 2 2"},
                    {"series": 'showdown_tournaments_finished_total{shard="b",instance="w1"}', "values": "0x5"},
                    {"series": 'showdown_tournaments_opened_total{shard="c",instance="w1"}', "values": "0 1 1 1 1 1"},
                ],
                "promql_expr_test": [
                    {
                        "expr": OPEN_TOURNAMENTS.replace("[7d]", "[1h]"),
                        "eval_time": "10m",
                        "exp_samples": [
                            {"labels": '{shard="a"}', "value": 2},
                            {"labels": '{shard="b"}', "value": 2},
                            {"labels": '{shard="c"}', "value": 1},
                        ],
                    }
                ],
            }
        ],
    }
    (tmp_path / "open_test.yml").write_text(yaml.safe_dump(case), encoding="utf-8")
    tested = promtool("test", "rules", "open_test.yml", cwd=tmp_path)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert OPEN_TOURNAMENTS in fill(page("operations.md"), "operations.md"), "docs/operations.md shows this query"
