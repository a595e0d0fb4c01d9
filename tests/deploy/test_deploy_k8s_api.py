"""deploy/k8s/api.yaml: the read API's Deployment, Service and NetworkPolicy, cross-checked against the API's routes
and settings, the ACL file, the archiver's claim and the example Secrets (the schemas are checked with every
manifest, test_deploy_k8s; the cluster overlay's rendering by kustomize, test_deploy_k8s_cluster)."""

from __future__ import annotations

import hashlib
import os
from typing import Any
from urllib.parse import urlsplit

import pytest

from showdown_service.api.settings import ApiSettings
from showdown_service.infra.config import Settings
from tests.deploy.test_deploy_k8s import ACL_FILE, ALL, SETTINGS_ENV, one
from tests.deploy.test_deploy_k8s_cluster import RENDERED

API_ENV = {f"SHOWDOWN_API_{name.upper()}" for name in ApiSettings.model_fields}
DEPLOYMENT = one("Deployment", "showdown-api")
POD = DEPLOYMENT["spec"]["template"]["spec"]
(CONTAINER,) = POD["containers"]
ENV = {e["name"]: e for e in CONTAINER["env"]}
(HTTP,) = CONTAINER["ports"]


def option(name: str) -> str:
    args: list[str] = CONTAINER["args"]
    return args[args.index(name) + 1]


def test_it_runs_showdown_api_on_every_address_of_the_pod_on_its_named_port() -> None:
    assert CONTAINER["args"][:2] == ["showdown", "api"]
    assert option("--host") == "0.0.0.0", "reached through the Service, not on the pod's loopback only"
    assert (HTTP["name"], HTTP["containerPort"], HTTP["protocol"]) == ("http", int(option("--port")), "TCP")
    assert CONTAINER["image"] == one("Deployment")["spec"]["template"]["spec"]["containers"][0]["image"]
    assert DEPLOYMENT["spec"]["replicas"] >= 2, "read-only and stateless: a rollout or a crash leaves one serving"
    assert DEPLOYMENT["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_the_probes_ask_the_api_s_own_routes_never_the_workers_heartbeat() -> None:
    probes = {name: CONTAINER[name]["httpGet"] for name in ("startupProbe", "readinessProbe", "livenessProbe")}
    assert all(probe["port"] == HTTP["name"] for probe in probes.values())
    assert probes["readinessProbe"]["path"] == "/readyz", "out of the Service while Redis does not answer"
    assert probes["livenessProbe"]["path"] == "/livez", "restarted only when the process itself stops answering"
    assert probes["startupProbe"]["path"] == "/livez"
    startup = CONTAINER["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 60, "time for the hand index's first read"
    assert "/healthz" not in str(probes), "/healthz judges the workers' heartbeat file: never there in this pod"


def test_it_is_locked_down_as_the_image_s_user_like_the_workers() -> None:
    worker_pod = one("Deployment")["spec"]["template"]["spec"]
    assert POD["securityContext"] == worker_pod["securityContext"]
    assert CONTAINER["securityContext"] == worker_pod["containers"][0]["securityContext"]
    assert POD["automountServiceAccountToken"] is False
    assert {"requests", "limits"} <= set(CONTAINER["resources"])


def test_it_logs_in_as_the_api_acl_user_and_takes_its_tokens_from_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    user = ENV["SHOWDOWN_REDIS_USERNAME"]["valueFrom"]["secretKeyRef"]
    password = ENV["SHOWDOWN_REDIS_PASSWORD"]["valueFrom"]["secretKeyRef"]
    assert user == {"name": "showdown-redis-api", "key": "username"}
    assert password == {"name": "showdown-redis-api", "key": "password"}
    secret = ALL[("Secret", user["name"])]["stringData"]
    assert secret["username"] == "api"
    line = next(line for line in ACL_FILE.read_text(encoding="utf-8").splitlines() if line.split()[1] == "api")
    assert "-@all" in line
    assert not {"+xadd", "+hset", "+del", "+eval", "+evalsha", "+xreadgroup"} & set(line.split()), "read-only"
    tokens = ENV["SHOWDOWN_API_TOKENS"]["valueFrom"]["secretKeyRef"]
    example = ALL[("Secret", tokens["name"])]["stringData"][tokens["key"]]
    for key in list(os.environ):
        if key.startswith("SHOWDOWN_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("SHOWDOWN_API_TOKENS", example)
    (token,) = ApiSettings().tokens  # the example's shape parses as the API parses it
    assert token.name.startswith("EXAMPLE")
    assert token.sha256 != hashlib.sha256(b"").hexdigest()
    mounted = {v["secret"]["secretName"]: [i["key"] for i in v["secret"]["items"]] for v in POD["volumes"]
               if "secret" in v}  # fmt: skip
    for name, keys in mounted.items():
        assert set(keys) <= set(ALL[("Secret", name)]["stringData"]), name


def test_its_settings_parse_and_it_reads_the_archivers_claim_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = {name: e["value"] for name, e in ENV.items() if "value" in e}
    assert set(plain) <= SETTINGS_ENV | API_ENV
    (source,) = CONTAINER["envFrom"]
    assert source == {"configMapRef": {"name": "showdown-worker"}}, "the workers' Redis address, CA and shards"
    for key in list(os.environ):
        if key.startswith("SHOWDOWN_"):
            monkeypatch.delenv(key)
    for key, value in {**one("ConfigMap")["data"], **plain}.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    mounts = {m["name"]: m for m in CONTAINER["volumeMounts"]}
    volumes = {v["name"]: v for v in POD["volumes"]}
    assert settings.archive_url == mounts["archive"]["mountPath"]
    assert mounts["archive"]["readOnly"] is True
    claim = volumes["archive"]["persistentVolumeClaim"]
    archiver = one("Deployment", "showdown-archiver")
    archivers = {v["name"]: v for v in archiver["spec"]["template"]["spec"]["volumes"]}
    assert claim == {**archivers["archive"]["persistentVolumeClaim"], "readOnly": True}, "the archiver's claim"
    (mode,) = ALL[("PersistentVolumeClaim", claim["claimName"])]["spec"]["accessModes"]
    if mode == "ReadWriteOnce":  # one node mounts it: the API's pods go where the archiver runs
        (term,) = POD["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert term["topologyKey"] == "kubernetes.io/hostname"
        assert term["labelSelector"]["matchLabels"] == archiver["spec"]["selector"]["matchLabels"]
    assert str(settings.redis_ca_file).startswith(mounts["redis-ca"]["mountPath"] + "/")
    assert "emptyDir" in volumes[next(n for n, m in mounts.items() if m["mountPath"] == "/tmp")]


def test_the_service_selects_the_api_s_pods_on_their_http_port() -> None:
    service: dict[str, Any] = one("Service", "showdown-api")
    assert service["spec"]["selector"] == DEPLOYMENT["spec"]["selector"]["matchLabels"]
    assert (
        DEPLOYMENT["spec"]["selector"]["matchLabels"].items()
        <= DEPLOYMENT["spec"]["template"]["metadata"]["labels"].items()
    )
    (port,) = service["spec"]["ports"]
    assert port["targetPort"] == HTTP["name"]
    assert service["spec"].get("type", "ClusterIP") == "ClusterIP", "exposed through your ingress, not a node port"
    annotations = DEPLOYMENT["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == str(HTTP["containerPort"]), "/metrics is served on the API's port"


def test_its_network_policy_lets_in_http_only_and_out_redis_dns_and_the_object_store() -> None:
    policy: dict[str, Any] = one("NetworkPolicy", "showdown-api")
    spec = policy["spec"]
    assert spec["podSelector"]["matchLabels"] == DEPLOYMENT["spec"]["selector"]["matchLabels"]
    assert sorted(spec["policyTypes"]) == ["Egress", "Ingress"]
    assert [(p["protocol"], p["port"]) for rule in spec["ingress"] for p in rule["ports"]] == [
        ("TCP", HTTP["containerPort"])
    ]
    redis_port = urlsplit(one("ConfigMap")["data"]["SHOWDOWN_REDIS_URL"]).port
    out = {(p["protocol"], p["port"]) for rule in spec["egress"] for p in rule["ports"]}
    assert out == {("TCP", redis_port), ("TCP", 443), ("UDP", 53), ("TCP", 53)}
    redis_rule = spec["egress"][0]
    assert redis_rule["ports"] == [{"protocol": "TCP", "port": redis_port}]
    worker_redis = one("NetworkPolicy")["spec"]["egress"][0]
    assert redis_rule["to"] == worker_redis["to"], "Redis as the workers reach it"


def test_on_a_cluster_the_api_reaches_the_cluster_s_nodes_as_the_workers_do() -> None:
    api = RENDERED[("NetworkPolicy", "showdown-api")]["spec"]["egress"][0]
    workers = RENDERED[("NetworkPolicy", "showdown-worker")]["spec"]["egress"][0]
    assert api["to"] == workers["to"] == [{"podSelector": {"matchLabels": {"app.kubernetes.io/name": "redis-cluster"}}}]
    assert RENDERED[("ConfigMap", "showdown-worker")]["data"]["SHOWDOWN_REDIS_CLUSTER"] == "true"
