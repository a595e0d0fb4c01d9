"""deploy/k8s/archiver.yaml: the archiver's Deployment, claim and network policy, cross-checked against the
settings, the ACL file and the example Secrets (the schemas are checked with every manifest, test_deploy_k8s)."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from showdown_service.infra.config import Settings
from tests.deploy.test_deploy_k8s import ACL_FILE, ALL, HEALTH, SETTINGS_ENV, one

DEPLOYMENT = one("Deployment", "showdown-archiver")
POD = DEPLOYMENT["spec"]["template"]["spec"]
(CONTAINER,) = POD["containers"]
ENV = {e["name"]: e for e in CONTAINER["env"]}


def acl_line(user: str) -> str:
    return next(line for line in ACL_FILE.read_text(encoding="utf-8").splitlines() if line.split()[1] == user)


def test_one_archiver_runs_showdown_archiver_recreated_never_two_at_once() -> None:
    assert DEPLOYMENT["spec"]["replicas"] == 1
    assert DEPLOYMENT["spec"]["strategy"] == {"type": "Recreate"}
    assert CONTAINER["args"] == ["showdown", "archiver"]
    assert CONTAINER["startupProbe"]["exec"]["command"] == HEALTH
    assert POD["terminationGracePeriodSeconds"] >= 30
    assert CONTAINER["securityContext"]["readOnlyRootFilesystem"] is True


def test_it_logs_in_as_the_archiver_acl_user_from_its_own_secret() -> None:
    secret = ENV["SHOWDOWN_REDIS_USERNAME"]["valueFrom"]["secretKeyRef"]["name"]
    assert secret == ENV["SHOWDOWN_REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]["name"] == "showdown-redis-archiver"
    example = ALL[("Secret", secret)]["stringData"]
    assert example["username"] == "archiver"
    assert acl_line("archiver").startswith("user archiver on #")


def test_its_settings_parse_and_the_archive_is_the_claims_mount(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = {name: e["value"] for name, e in ENV.items() if "value" in e}
    assert set(plain) <= SETTINGS_ENV
    for key in list(os.environ):
        if key.startswith("SHOWDOWN_"):
            monkeypatch.delenv(key)
    for key, value in {**one("ConfigMap")["data"], **plain}.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    mounts = {m["name"]: m["mountPath"] for m in CONTAINER["volumeMounts"]}
    volumes = {v["name"]: v for v in POD["volumes"]}
    assert settings.archive_url == mounts["archive"]
    claim = volumes["archive"]["persistentVolumeClaim"]["claimName"]
    assert ("PersistentVolumeClaim", claim) in ALL
    assert str(settings.archive_signing_key).startswith(mounts["signing"] + "/")
    assert volumes["signing"]["secret"]["defaultMode"] == 0o400
    assert str(settings.archiver_heartbeat).startswith(mounts["tmp"] + "/")
    assert CONTAINER["ports"][0]["containerPort"] == settings.archiver_metrics_port


def test_its_network_policy_allows_redis_dns_and_the_object_store_out_and_metrics_in() -> None:
    policy: dict[str, Any] = one("NetworkPolicy", "showdown-archiver")
    assert policy["spec"]["podSelector"]["matchLabels"] == DEPLOYMENT["spec"]["selector"]["matchLabels"]
    out = {(p["port"], p["protocol"]) for rule in policy["spec"]["egress"] for p in rule["ports"]}
    assert out == {(6379, "TCP"), (443, "TCP"), (53, "UDP"), (53, "TCP")}
    assert [p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]] == [9109]
    assert re.search(r"\+xtrim ~showdown:\{\*\}:audit", acl_line("archiver")), "it trims only what it archived"
