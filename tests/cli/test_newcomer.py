"""What a newcomer trips over, tried as one would: the Valkey command of docs/getting-started.md starts a server;
`showdown settings` prints the values in effect; the first commands' help says what each does, the settings it
reads and an example; the site's settings table keeps its placeholders; the site opened from disk can search."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import redis

from showdown_service.cli.commands import main
from showdown_service.infra.config import Settings, settings_table
from showdown_service.testing.localredis import free_port
from tests.helpers import REPO, wait_until
from tests.project.test_docs import _build_copy, between, page

SETTINGS = {f"SHOWDOWN_{name.upper()}" for name in Settings.model_fields}
HELPED = (["worker"], ["health"], ["settings"], ["demo"], ["audit", "verify"], ["archiver"], ["hand"])


def test_getting_started_gives_a_command_that_starts_the_valkey_of_the_virtual_environment(tmp_path: Path) -> None:
    block = between((REPO / "docs" / "getting-started.md").read_text(encoding="utf-8"), "start-valkey")
    (command,) = re.findall(r"```sh\n(.*?)\n```", block, re.DOTALL)
    assert "--port 6379" in command
    port = free_port()
    started = subprocess.run(  # the documented shell command, as a reader pastes it
        command.replace("--port 6379", f"--port {port}"),
        shell=True,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert started.returncode == 0, started.stderr
    client = redis.Redis(port=port, socket_timeout=5)
    try:
        wait_until(lambda: _pings(client), "the documented Valkey to answer", timeout=15)
    finally:
        client.shutdown(nosave=True)
        client.close()


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


def test_settings_prints_the_values_in_effect_with_the_environment_applied_and_passwords_masked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in list(os.environ):
        if name.startswith("SHOWDOWN_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("SHOWDOWN_REDIS_URL", "redis://10.1.2.3:6380/0")
    monkeypatch.setenv("SHOWDOWN_REDIS_PASSWORD", "s3cret-pw")
    monkeypatch.setenv("SHOWDOWN_SHARDS", "t1, t2")
    assert main(["settings"]) == 0
    out = capsys.readouterr().out
    lines = {line.split("=", 1)[0]: line for line in out.splitlines()}
    assert set(lines) == SETTINGS, "every setting, one a line"
    assert lines["SHOWDOWN_REDIS_URL"].startswith("SHOWDOWN_REDIS_URL=redis://10.1.2.3:6380/0  # set: Where Redis is")
    assert lines["SHOWDOWN_SHARDS"].startswith("SHOWDOWN_SHARDS=t1,t2  # set:")
    assert lines["SHOWDOWN_BATCH_SIZE"].startswith("SHOWDOWN_BATCH_SIZE=100  # default:")
    assert lines["SHOWDOWN_REDIS_PASSWORD"].startswith("SHOWDOWN_REDIS_PASSWORD=********  # set:")
    assert "s3cret-pw" not in out

    assert main(["settings", "--defaults"]) == 0
    table = capsys.readouterr().out
    assert table.strip() == settings_table(html=False)
    assert "showdown:{<shard>}:*" in table, "a terminal shows the placeholder as written"


def test_a_setting_that_does_not_parse_is_named_not_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SHOWDOWN_BATCH_SIZE", "lots")
    assert main(["settings"]) == 2
    assert "SHOWDOWN_BATCH_SIZE:" in capsys.readouterr().err


@pytest.mark.parametrize("command", HELPED, ids=" ".join)
def test_each_first_command_says_what_it_does_the_settings_it_reads_and_an_example(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    usage, description, *_ = text.split("\n\n")
    assert usage.startswith(f"usage: showdown {' '.join(command)}")
    assert len(description) > 150, f"{command}: say what it does, not only its flags"
    named = set(re.findall(r"SHOWDOWN_[A-Z_]*[A-Z]", text))
    assert named, f"{command}: name the settings it reads"
    assert named <= SETTINGS, f"{command}: names settings that do not exist: {named - SETTINGS}"
    example = text.split("\nexample:\n", 1)[1]
    assert f"showdown {' '.join(command)}" in example


def test_the_sites_settings_table_keeps_its_placeholders_and_names_never_break_mid_word() -> None:
    text = page("operations.md")
    assert "showdown:{&lt;shard&gt;}:*" in text, "<shard> escaped: the browser shows it, not an unknown tag"
    table = [line for line in text.splitlines() if line.startswith("| `SHOWDOWN_")]  # the generated settings table
    assert table, "the settings table is on the page"
    assert not [line for line in table if "{<shard>}" in line], "a bare <shard> in a table cell is an unknown tag"
    css = (REPO / "docs" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert "td:first-child code" in css
    assert "white-space: nowrap" in css


def test_the_site_opened_from_disk_has_its_search_with_nothing_fetched_from_elsewhere(tmp_path: Path) -> None:
    built = _build_copy(tmp_path)
    assert built.returncode == 0, built.stderr
    site = tmp_path / "site"
    index = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    assert index.startswith("var __index = "), "the offline plugin's index: search without a server"
    assert '"location":"operations.html' in index.replace(" ", "")
    for html in site.glob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert 'iframe-worker/shim.js"' in text, html.name  # (404.html links from the site root)
        assert "md-search" in text, f"{html.name}: a search box"
        assert "unpkg.com" not in text, f"{html.name}: fetches a script from the web"
        assert 'stylesheets/extra.css"' in text, html.name
    assert (site / "assets" / "iframe-worker" / "shim.js").exists()
