"""deploy/k8s: the kustomize base, against Kubernetes' schemas (kubernetes-validate, strict, offline), the KEDA
objects against deploy/schemas, and every cross-reference between the manifests, the image, the settings and
the ACL file."""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml

from showdown_service.infra.config import Settings
from tests.deploy.test_deploy_image import DOCKERFILE, parse_dockerfile
from tests.helpers import REPO

K8S = REPO / "deploy" / "k8s"
SCHEMAS = REPO / "deploy" / "schemas"
ACL_FILE = REPO / "deploy" / "redis" / "users.acl"
KEDA_SCHEMAS = {
    "ScaledObject": SCHEMAS / "keda.sh_v1alpha1_scaledobject.schema.json",
    "TriggerAuthentication": SCHEMAS / "keda.sh_v1alpha1_triggerauthentication.schema.json",
}
KUBERNETES_VERSIONS = ("1.29.0", "1.37.0")
"""The oldest and the newest release whose schemas kubernetes-validate ships (as pinned in constraints.txt)."""
SETTINGS_ENV = {f"SHOWDOWN_{name.upper()}" for name in Settings.model_fields}
HEALTH = ["showdown", "health"]


def documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def manifest_files() -> list[Path]:
    return sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


ALL = {(doc["kind"], doc["metadata"]["name"]): doc for path in manifest_files() for doc in documents(path)}


def one(kind: str, name: str = "showdown-worker") -> dict[str, Any]:
    return ALL[(kind, name)]


def keda_validator(kind: str) -> jsonschema.protocols.Validator:
    schema = json.loads(KEDA_SCHEMAS[kind].read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


DEPLOYMENT = one("Deployment")
POD = DEPLOYMENT["spec"]["template"]["spec"]
(CONTAINER,) = POD["containers"]
CONFIG = one("ConfigMap")["data"]
SCALED = one("ScaledObject")
TRIGGER_AUTH = one("TriggerAuthentication", "showdown-redis-scaler")


# --- schemas ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_kubernetes_manifest_is_valid_against_the_kubernetes_schema_strictly(version: str) -> None:
    core = [doc for doc in ALL.values() if doc["kind"] not in KEDA_SCHEMAS]
    assert {doc["kind"] for doc in core} == {
        "ConfigMap",
        "Deployment",
        "PodDisruptionBudget",
        "NetworkPolicy",
        "Secret",
        "PersistentVolumeClaim",  # the archive (archiver.yaml)
        "Service",  # the read API's (api.yaml)
    }
    for doc in core:
        kubernetes_validate.validate(doc, version, strict=True)
    typo = copy.deepcopy(DEPLOYMENT)
    typo["spec"]["template"]["spec"]["terminationGracePeriod"] = 30
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(typo, version, strict=True)


def test_the_keda_objects_are_valid_against_the_keda_schemas() -> None:
    keda = [doc for doc in ALL.values() if doc["kind"] in KEDA_SCHEMAS]
    assert sorted(doc["kind"] for doc in keda) == ["ScaledObject", "TriggerAuthentication"]
    for doc in keda:
        keda_validator(doc["kind"]).validate(doc)


def _set(path: str, value: Any) -> Any:
    def change(doc: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        target: Any = doc
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value

    return change


BAD_KEDA = [
    ("ScaledObject", "spec/triggers/0/metadata/lagCount", 500),  # a number: KEDA wants strings
    ("ScaledObject", "spec/triggers/0/metadata/lagcount", "500"),  # misspelt: KEDA would ignore it
    ("ScaledObject", "spec/triggers/0/metadata/activationLagCount", "ten"),
    ("ScaledObject", "spec/triggers/0/metadata/stream", KeyError),
    ("ScaledObject", "spec/triggers/0/metadata/address", "rediss://redis:6379"),
    ("ScaledObject", "spec/minReplicas", 1),
    ("ScaledObject", "spec/scaleTargetRef", KeyError),
    ("ScaledObject", "spec/triggers/0/authenticationRef/name", KeyError),
    ("ScaledObject", "spec/triggers", []),
    ("ScaledObject", "spec/maxReplicaCount", -1),
    ("TriggerAuthentication", "spec/secretTargetRef/0/key", KeyError),
    ("TriggerAuthentication", "spec/secretRef", []),
    ("TriggerAuthentication", "apiVersion", "keda.sh/v1"),
]


@pytest.mark.parametrize(("kind", "path", "value"), BAD_KEDA, ids=[f"{k}:{p}" for k, p, _ in BAD_KEDA])
def test_the_keda_schemas_reject_what_keda_would_misread(kind: str, path: str, value: Any) -> None:
    doc = copy.deepcopy(SCALED if kind == "ScaledObject" else TRIGGER_AUTH)
    _set(path, value)(doc)
    assert not keda_validator(kind).is_valid(doc)


# --- the kustomize base and the example secret -----------------------------------------------------------------


def test_the_kustomization_lists_every_manifest_but_the_example_secret() -> None:
    (kustomization,) = documents(K8S / "kustomization.yaml")
    assert (kustomization["apiVersion"], kustomization["kind"]) == ("kustomize.config.k8s.io/v1beta1", "Kustomization")
    listed = set(kustomization["resources"])
    assert listed == {p.name for p in manifest_files()} - {"secret-example.yaml"}
    (image,) = kustomization["images"]
    assert image["name"] == CONTAINER["image"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", image["newTag"]), "a pinned tag, never latest"
    assert "namespace" not in kustomization, "the overlay chooses the namespace"


def test_the_example_secrets_are_plainly_examples_and_hold_every_key_the_base_reads() -> None:
    text = (K8S / "secret-example.yaml").read_text(encoding="utf-8")
    assert text.startswith("# EXAMPLE ONLY")
    secrets = {name: doc for (kind, name), doc in ALL.items() if kind == "Secret"}
    for doc in secrets.values():
        assert "not-for-production" in " ".join(doc["metadata"]["annotations"])
        assert "EXAMPLE" in doc["stringData"]["password"]
    wanted = {(ref["name"], ref["key"]) for ref in TRIGGER_AUTH["spec"]["secretTargetRef"]}
    wanted |= {
        (e["valueFrom"]["secretKeyRef"]["name"], e["valueFrom"]["secretKeyRef"]["key"])
        for e in CONTAINER["env"]
        if "secretKeyRef" in e.get("valueFrom", {})
    }
    wanted |= {
        (v["secret"]["secretName"], item["key"])
        for v in POD["volumes"]
        if "secret" in v
        for item in v["secret"]["items"]
    }
    for name, key in wanted:
        assert key in secrets[name]["stringData"], f"secret {name} has no {key}"


# --- the workers ---------------------------------------------------------------------------------------------------


def test_the_configmap_holds_worker_settings_that_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(CONFIG) <= SETTINGS_ENV, set(CONFIG) - SETTINGS_ENV
    assert not {"SHOWDOWN_REDIS_PASSWORD", "SHOWDOWN_REDIS_USERNAME"} & set(CONFIG), "credentials live in Secrets"
    for key in list(os.environ):
        if key.startswith("SHOWDOWN_"):
            monkeypatch.delenv(key)
    for key, value in CONFIG.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    assert settings.redis_url.startswith("rediss://"), "TLS to Redis"
    assert settings.group == "adjudicators"
    mounts = {m["mountPath"]: m for m in CONTAINER["volumeMounts"]}
    assert str(settings.redis_ca_file.parent if settings.redis_ca_file else "") in mounts, "the CA file is mounted"
    (metrics,) = CONTAINER["ports"]
    assert metrics["containerPort"] == settings.metrics_port


def test_the_deployment_runs_showdown_worker_locked_down_as_the_images_user() -> None:
    _, stages = parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))
    uid, gid = (int(n) for n in stages[-1].one("USER").split(":"))
    pod, container = POD["securityContext"], CONTAINER["securityContext"]
    assert (pod["runAsNonRoot"], pod["runAsUser"], pod["runAsGroup"]) == (True, uid, gid)
    assert pod["seccompProfile"] == {"type": "RuntimeDefault"}
    assert container["readOnlyRootFilesystem"] is True
    assert container["allowPrivilegeEscalation"] is False
    assert container["capabilities"] == {"drop": ["ALL"]}
    assert POD["automountServiceAccountToken"] is False
    assert CONTAINER["args"] == ["showdown", "worker"]
    assert {"requests", "limits"} <= set(CONTAINER["resources"])
    assert {"cpu", "memory"} <= set(CONTAINER["resources"]["requests"])
    assert "memory" in CONTAINER["resources"]["limits"]


def test_the_probes_run_showdown_health_and_the_heartbeat_lives_on_an_empty_dir() -> None:
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert CONTAINER[probe]["exec"]["command"] == HEALTH, probe
        assert CONTAINER[probe]["timeoutSeconds"] >= 2, "showdown health starts Python and pings Redis"
    liveness = CONTAINER["livenessProbe"]
    assert liveness["periodSeconds"] * liveness["failureThreshold"] >= float(CONFIG["SHOWDOWN_HEALTH_MAX_AGE_S"])
    heartbeat = Path(CONFIG["SHOWDOWN_HEARTBEAT_FILE"])
    mounts = {m["mountPath"]: m["name"] for m in CONTAINER["volumeMounts"]}
    volumes = {v["name"]: v for v in POD["volumes"]}
    assert "emptyDir" in volumes[mounts[str(heartbeat.parent)]], "the root filesystem is read-only"


def test_the_workers_stop_gracefully_and_log_in_with_the_worker_secret() -> None:
    block_s = int(CONFIG["SHOWDOWN_BLOCK_MS"]) / 1000
    assert POD["terminationGracePeriodSeconds"] >= max(10, 5 * block_s), "time to commit the batch in hand"
    env = {e["name"]: e["valueFrom"] for e in CONTAINER["env"] if "valueFrom" in e}
    assert env["SHOWDOWN_REDIS_USERNAME"]["secretKeyRef"] == {"name": "showdown-redis-worker", "key": "username"}
    assert env["SHOWDOWN_REDIS_PASSWORD"]["secretKeyRef"] == {"name": "showdown-redis-worker", "key": "password"}
    assert env["SHOWDOWN_CONSUMER"] == {"fieldRef": {"fieldPath": "metadata.name"}}, "one consumer name per pod"
    assert one("Secret", "showdown-redis-worker")["stringData"]["username"] == "worker"
    assert DEPLOYMENT["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_the_disruption_budget_and_network_policy_select_the_workers() -> None:
    labels = DEPLOYMENT["spec"]["template"]["metadata"]["labels"]
    selector = DEPLOYMENT["spec"]["selector"]["matchLabels"]
    assert selector.items() <= labels.items()
    pdb, policy = one("PodDisruptionBudget"), one("NetworkPolicy")
    assert pdb["spec"]["selector"]["matchLabels"] == selector
    assert policy["spec"]["podSelector"]["matchLabels"] == selector
    assert pdb["spec"]["maxUnavailable"] == 1, "a drain may stop the one worker (it commits its batch first)"


def test_the_network_policy_allows_only_redis_and_dns_out_and_metrics_in() -> None:
    spec = one("NetworkPolicy")["spec"]
    assert sorted(spec["policyTypes"]) == ["Egress", "Ingress"]
    (ingress,) = spec["ingress"]
    assert ingress["ports"] == [{"protocol": "TCP", "port": int(CONFIG["SHOWDOWN_METRICS_PORT"])}]
    assert ingress["from"], "scraped by Prometheus only, not by anyone"
    redis_port = urlsplit(CONFIG["SHOWDOWN_REDIS_URL"]).port
    egress = [
        (tuple((p["protocol"], p["port"]) for p in rule["ports"]), bool(rule.get("to"))) for rule in spec["egress"]
    ]
    assert sorted(egress) == sorted([((("TCP", redis_port),), True), ((("UDP", 53), ("TCP", 53)), True)])


# --- scaling -------------------------------------------------------------------------------------------------------


def test_the_scaled_object_scales_the_deployment_on_the_lag_of_every_configured_shard() -> None:
    spec = SCALED["spec"]
    assert spec["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": DEPLOYMENT["metadata"]["name"],
    }
    assert 1 <= spec["minReplicaCount"] <= spec["maxReplicaCount"]
    settings = Settings(shards=CONFIG["SHOWDOWN_SHARDS"], group=CONFIG["SHOWDOWN_GROUP"])
    url = urlsplit(CONFIG["SHOWDOWN_REDIS_URL"])
    streams = set()
    for trigger in spec["triggers"]:
        meta = trigger["metadata"]
        assert trigger["type"] == "redis-streams"
        assert meta["consumerGroup"] == settings.group
        assert meta["address"] == f"{url.hostname}:{url.port}"
        assert meta["databaseIndex"] == url.path.strip("/")
        assert 0 < int(meta["activationLagCount"]) < int(meta["lagCount"])
        assert "enableTLS" not in meta, "TLS comes from the TriggerAuthentication (KEDA: not both)"
        assert trigger["authenticationRef"] == {"name": TRIGGER_AUTH["metadata"]["name"]}
        streams.add(meta["stream"])
    assert streams == {settings.keys(shard).events for shard in settings.shards}, "one trigger per shard"


def test_item15_keda_and_the_deployment_keep_one_worker_per_shard() -> None:
    """docs/deploy.md: one worker per tournament shard (a second one waits its turn: 7x slower measured). The base
    Deployment serves every configured shard, any of which may carry tournaments: exactly one replica."""
    spec = SCALED["spec"]
    assert spec["minReplicaCount"] == spec["maxReplicaCount"] == 1
    assert DEPLOYMENT["spec"]["replicas"] == 1
    assert "--processes" not in CONTAINER["args"]


def test_keda_logs_in_as_the_scaler_user_over_tls_with_the_workers_ca() -> None:
    refs = {ref["parameter"]: (ref["name"], ref["key"]) for ref in TRIGGER_AUTH["spec"]["secretTargetRef"]}
    assert set(refs) == {"username", "password", "tls", "ca"}
    (secret_name,) = {name for name, _ in refs.values()}
    data = one("Secret", secret_name)["stringData"]
    assert data[refs["username"][1]] == "scaler"
    assert data[refs["tls"][1]] == "enable"
    scaler = next(line for line in ACL_FILE.read_text(encoding="utf-8").splitlines() if line.split()[1] == "scaler")
    assert "+xinfo|groups" in scaler
    assert "%R~showdown:{*}:events" in scaler


def test_the_workers_read_the_archivers_claim_read_only_where_the_archiver_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker restores from the archive before a new chain's first commit (and tells a Redis back behind the
    archive): it needs the archiver's archive, as compose's workers have it; read-only, on the archiver's node for
    a ReadWriteOnce claim."""
    env = {e["name"]: e for e in CONTAINER["env"]}
    plain = {name: e["value"] for name, e in env.items() if "value" in e}
    for key in list(os.environ):
        if key.startswith("SHOWDOWN_"):
            monkeypatch.delenv(key)
    for key, value in {**CONFIG, **plain}.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    mounts = {m["name"]: m for m in CONTAINER["volumeMounts"]}
    volumes = {v["name"]: v for v in POD["volumes"]}
    assert settings.archive_url == mounts["archive"]["mountPath"]
    assert mounts["archive"]["readOnly"] is True
    archiver = one("Deployment", "showdown-archiver")
    archivers = {v["name"]: v for v in archiver["spec"]["template"]["spec"]["volumes"]}
    archiver_env = {e["name"]: e.get("value") for e in archiver["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert settings.archive_url == archiver_env["SHOWDOWN_ARCHIVE_URL"], "the archiver's archive, at its path"
    claim = volumes["archive"]["persistentVolumeClaim"]
    assert claim == {**archivers["archive"]["persistentVolumeClaim"], "readOnly": True}, "the archiver's claim"
    (mode,) = ALL[("PersistentVolumeClaim", claim["claimName"])]["spec"]["accessModes"]
    if mode == "ReadWriteOnce":
        (term,) = POD["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert term["topologyKey"] == "kubernetes.io/hostname"
        assert term["labelSelector"]["matchLabels"] == archiver["spec"]["selector"]["matchLabels"]
