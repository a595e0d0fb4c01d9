"""Write the monitoring files of a deployment from their one source (showdown_service.ops.alert_rules and
showdown_service.ops.dashboard):

* deploy/prometheus/alerts.yml: the Prometheus rule file (recording rules, SLO burn-rate alerts, alerts);
* deploy/prometheus/alerts_test.yml and alerts_test_long.yml: its ``promtool test rules`` cases (each alert fires
  in one, not in another; the long file holds those evaluated hours in, every 10 minutes);
* deploy/k8s-monitoring/prometheusrule.yaml: the same groups as a Prometheus Operator ``PrometheusRule``;
* deploy/grafana/showdown.json: the Grafana dashboard.

    .venv/bin/python scripts/observability.py          # write them
    .venv/bin/python scripts/observability.py --check  # exit 1 if a committed file differs (what the tests check)

Each alert's ``runbook_url`` is an absolute URL: ``SHOWDOWN_RUNBOOK_BASE_URL`` (where your deployment serves
docs/operations.md) plus the runbook's anchor. The committed files are written without it
(``https://showdown.example/operations/``, a reserved name); write your own with it set:

    SHOWDOWN_RUNBOOK_BASE_URL=https://docs.example.com/showdown/operations/ .venv/bin/python scripts/observability.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

from showdown_service.ops.alert_rules import rule_groups, rule_tests
from showdown_service.ops.dashboard import dashboard

REPO = Path(__file__).resolve().parent.parent
HEADER = (
    "# Written by scripts/observability.py from worker/showdown_service/ops/alert_rules.py: edit that, then run it.\n"
)


def _yaml(document: object) -> str:
    return HEADER + yaml.safe_dump(document, sort_keys=False, width=120, allow_unicode=True)


def files() -> dict[Path, str]:
    """Every file this script writes, by path, with its text."""
    groups = rule_groups()
    rule = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": "showdown", "labels": {"app.kubernetes.io/name": "showdown-worker"}},
        "spec": {"groups": groups},
    }
    return {
        REPO / "deploy/prometheus/alerts.yml": _yaml({"groups": groups}),
        REPO / "deploy/prometheus/alerts_test.yml": _yaml(rule_tests("alerts.yml")),
        REPO / "deploy/prometheus/alerts_test_long.yml": _yaml(rule_tests("alerts.yml", long=True)),
        REPO / "deploy/k8s-monitoring/prometheusrule.yaml": _yaml(rule),
        REPO / "deploy/grafana/showdown.json": json.dumps(dashboard(), indent=2) + "\n",
    }


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    stale = []
    for path, text in files().items():
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.relative_to(REPO))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(path.relative_to(REPO))
    if stale:
        print("out of date (run scripts/observability.py):", *stale, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
