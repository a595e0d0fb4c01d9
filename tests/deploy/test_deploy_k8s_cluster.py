"""deploy/k8s-cluster: the overlay for a Redis Cluster, rendered here as kustomize renders it (its JSON patches
applied to the base), checked against the real kustomize (v4.5.4, the one kubectl embeds; the Makefile fetches it
into .venv/kustomize), then validated as the base
is (Kubernetes' schemas strictly, the KEDA schemas) and cross-checked: cluster settings that parse, one
redis-cluster-streams trigger per shard, the shards two per master, the scaler user's cluster grants."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml
from redis.crc import key_slot

from showdown_service.infra.config import Settings
from tests.deploy.test_deploy_k8s import ALL as BASE
from tests.deploy.test_deploy_k8s import KEDA_SCHEMAS, KUBERNETES_VERSIONS, documents, keda_validator
from tests.helpers import REPO

OVERLAY = REPO / "deploy" / "k8s-cluster"
KUSTOMIZE = Path(sys.prefix) / "kustomize" / "kustomize"
"""kustomize 4.5.4, fetched by the Makefile (`make test`, or `make .venv/kustomize/kustomize`)."""
CLUSTER_ACL_FILE = REPO / "deploy" / "redis" / "users-cluster.acl"
MASTERS = 3
EVEN_SPLIT = [(0, 5460), (5461, 10922), (10923, 16383)]
"""The slots of each master of a three-master cluster made by `redis-cli --cluster create`."""


def pointer(path: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in path.lstrip("/").split("/")]


def apply_json_patch(doc: dict[str, Any], operations: list[dict[str, Any]]) -> dict[str, Any]:
    """RFC 6902 ``add`` and ``replace`` (all the overlay uses), on a copy; a path that is not there is an error."""
    patched = copy.deepcopy(doc)
    for op in operations:
        *parents, last = pointer(op["path"])
        target: Any = patched
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if op["op"] == "replace":
            assert (int(last) < len(target)) if isinstance(target, list) else (last in target), op["path"]
        else:
            assert op["op"] == "add", f"only add and replace here, not {op['op']}"
        if isinstance(target, list):
            target[int(last)] = op["value"]
        else:
            target[last] = op["value"]
    return patched


def render() -> dict[tuple[str, str], dict[str, Any]]:
    """The overlay's output: the base's objects, each patched by the patches that target it."""
    (kustomization,) = documents(OVERLAY / "kustomization.yaml")
    assert kustomization["resources"] == ["../k8s"]
    assert set(kustomization) == {"apiVersion", "kind", "resources", "patches"}
    rendered = copy.deepcopy(BASE)
    for patch in kustomization["patches"]:
        key = (patch["target"]["kind"], patch["target"]["name"])
        operations = yaml.safe_load((OVERLAY / patch["path"]).read_text(encoding="utf-8"))
        rendered[key] = apply_json_patch(rendered[key], operations)
    return rendered


RENDERED = render()
CONFIG = RENDERED[("ConfigMap", "showdown-worker")]["data"]
SCALED = RENDERED[("ScaledObject", "showdown-worker")]
TRIGGER_AUTH = RENDERED[("TriggerAuthentication", "showdown-redis-scaler")]


def cluster_settings(monkeypatch: pytest.MonkeyPatch) -> Settings:
    for key in list(os.environ):
        if key.startswith("SHOWDOWN_"):
            monkeypatch.delenv(key)
    for key, value in CONFIG.items():
        monkeypatch.setenv(key, value)
    return Settings()


def test_kustomize_renders_the_overlay_exactly_as_the_test_does() -> None:
    assert KUSTOMIZE.is_file(), f"{KUSTOMIZE} is missing: make test fetches it (make .venv/kustomize/kustomize)"
    built = subprocess.run([str(KUSTOMIZE), "build", str(OVERLAY)], capture_output=True, text=True, timeout=60,
                           check=False)  # fmt: skip
    assert built.returncode == 0, built.stderr
    by_kustomize = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(built.stdout) if d}
    labelled = {key: copy.deepcopy(doc) for key, doc in RENDERED.items() if key[0] != "Secret"}
    for doc in labelled.values():  # the base's common label, which kustomize adds to every object
        doc["metadata"].setdefault("labels", {})["app.kubernetes.io/part-of"] = "showdown"
    for (kind, _), doc in labelled.items():  # the base's images: entry rewrites the image of every container
        for container in doc["spec"]["template"]["spec"]["containers"] if kind == "Deployment" else ():
            if container["image"] == "showdown-worker":
                container["image"] = "registry.example.com/showdown/showdown-worker:0.1.0"
    assert sorted(by_kustomize) == sorted(labelled)
    for key, doc in labelled.items():
        assert json.dumps(by_kustomize[key], sort_keys=True) == json.dumps(doc, sort_keys=True), key


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_kubernetes_object_of_the_overlay_is_valid_strictly(version: str) -> None:
    for (kind, _), doc in RENDERED.items():
        if kind not in KEDA_SCHEMAS:
            kubernetes_validate.validate(doc, version, strict=True)


def test_the_overlay_s_keda_objects_are_valid_and_the_schema_rejects_a_misread_cluster_trigger() -> None:
    for kind in KEDA_SCHEMAS:
        for (k, _), doc in RENDERED.items():
            if k == kind:
                keda_validator(kind).validate(doc)
    bad: list[tuple[str, Any]] = [
        ("address", "redis-cluster-0:6379"),  # the single-node scaler's name: KEDA would ignore it here
        ("databaseIndex", "0"),  # a cluster has database 0 only
        ("lagCount", 500),
        ("addresses", "rediss://redis-cluster-0:6379"),
        ("lagcount", "500"),
    ]
    for field, value in bad:
        doc = copy.deepcopy(SCALED)
        doc["spec"]["triggers"][0]["metadata"][field] = value
        assert not keda_validator("ScaledObject").is_valid(doc), field


def test_the_workers_run_the_cluster_client_over_tls_and_wait_for_a_replica(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = cluster_settings(monkeypatch)
    assert settings.redis_cluster is True
    assert settings.redis_url.startswith("rediss://"), "TLS to every node"
    assert urlsplit(settings.redis_url).path in ("", "/", "/0"), "a cluster has database 0 only"
    assert settings.wait_replicas >= 1
    assert len(settings.shards) >= MASTERS
    policy = RENDERED[("NetworkPolicy", "showdown-worker")]["spec"]
    redis_out = policy["egress"][0]
    assert redis_out["ports"] == [{"protocol": "TCP", "port": urlsplit(settings.redis_url).port}]
    assert redis_out["to"] == [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "redis-cluster"}}}]


def test_the_shards_spread_evenly_over_the_masters_of_an_evenly_split_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = cluster_settings(monkeypatch)
    per_master = [0] * MASTERS
    for shard in settings.shards:
        slot = key_slot(settings.keys(shard).events.encode())
        (master,) = [i for i, (low, high) in enumerate(EVEN_SPLIT) if low <= slot <= high]
        per_master[master] += 1
    assert per_master == [len(settings.shards) // MASTERS] * MASTERS


def test_keda_has_one_redis_cluster_streams_trigger_per_shard_on_the_group_lag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = cluster_settings(monkeypatch)
    streams = []
    for trigger in SCALED["spec"]["triggers"]:
        meta = trigger["metadata"]
        assert trigger["type"] == "redis-cluster-streams"
        assert meta["consumerGroup"] == settings.group
        addresses = meta["addresses"].split(",")
        assert len(addresses) >= MASTERS, "seed nodes enough for one to be down"
        assert {urlsplit(f"//{a}").port for a in addresses} == {urlsplit(settings.redis_url).port}
        assert 0 < int(meta["activationLagCount"]) < int(meta["lagCount"])
        assert "enableTLS" not in meta, "TLS comes from the TriggerAuthentication (KEDA: not both)"
        assert trigger["authenticationRef"] == {"name": TRIGGER_AUTH["metadata"]["name"]}
        streams.append(meta["stream"])
    assert streams == [settings.keys(shard).events for shard in settings.shards], "one trigger per shard, in order"
    assert len({t["name"] for t in SCALED["spec"]["triggers"]}) == len(streams)


def test_keda_logs_in_as_the_scaler_whose_cluster_grants_cover_a_cluster_client() -> None:
    refs = {ref["parameter"] for ref in TRIGGER_AUTH["spec"]["secretTargetRef"]}
    assert refs == {"username", "password", "tls", "ca"}
    scaler = next(line for line in CLUSTER_ACL_FILE.read_text(encoding="utf-8").splitlines() if " scaler " in line)
    for grant in ("+command", "+cluster|slots", "+asking", "+info", "+xinfo|groups", "%R~showdown:{*}:events"):
        assert f" {grant}" in scaler, grant


def test_the_overlay_changes_only_what_a_cluster_needs() -> None:
    changed = {key for key, doc in RENDERED.items() if doc != BASE[key]}
    assert changed == {("ConfigMap", "showdown-worker"), ("ScaledObject", "showdown-worker"),
                       ("NetworkPolicy", "showdown-worker"), ("NetworkPolicy", "showdown-api")}  # fmt: skip
    files = ("kustomization.yaml", "configmap-patch.yaml", "scaledobject-patch.yaml", "networkpolicy-patch.yaml")
    assert set(Path(OVERLAY).iterdir()) == {OVERLAY / name for name in files}
