"""Durable state per project: the project found from the working directory names the
queue and holds the SQLite database; explicit settings win; ``ostinato config`` says it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ostinato_dbos import DbosSettings, default_sqlite_path
from ostinato_dbos._project import project_directory, project_name

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Two projects (``Shop API`` with a pyproject.toml, ``billing`` a git checkout) and
    a state home of this test's own."""
    shop, billing = tmp_path / "Shop API", tmp_path / "billing"
    (shop / "src" / "deep").mkdir(parents=True)
    (shop / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (billing / ".git").mkdir(parents=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    for name in ("PROJECT", "STATE_DIR", "QUEUE", "DATABASE_URL", "EXECUTOR_ID"):
        monkeypatch.delenv(f"OSTINATO_DBOS_{name}", raising=False)
    return shop, billing


def test_each_project_has_its_own_queue_and_database(
    projects: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    shop, billing = projects
    monkeypatch.chdir(shop / "src" / "deep")  # below the project's root: the same project
    in_shop = DbosSettings()
    monkeypatch.chdir(billing)
    in_billing = DbosSettings()
    assert (in_shop.project, in_billing.project) == ("shop-api", "billing")
    assert (in_shop.queue, in_billing.queue) == (
        "ostinato-turns-shop-api",
        "ostinato-turns-billing",
    )
    state = Path(os.environ["XDG_STATE_HOME"]) / "ostinato" / "dbos"
    assert in_shop.state_dir.parent == in_billing.state_dir.parent == state
    assert in_shop.state_dir.name.startswith("shop-api-")
    assert in_shop.system_database_url() == f"sqlite:///{in_shop.state_dir / 'dbos.sqlite3'}"
    assert in_shop.system_database_url() != in_billing.system_database_url()
    assert default_sqlite_path() == in_billing.state_dir / "dbos.sqlite3"
    # Two checkouts of one name on one machine stay apart.
    other = billing.parent / "elsewhere" / "billing"
    (other / ".git").mkdir(parents=True)
    monkeypatch.chdir(other)
    assert DbosSettings().queue == in_billing.queue
    assert DbosSettings().state_dir != in_billing.state_dir


def test_without_a_project_marker_the_working_directory_is_the_project(tmp_path: Path) -> None:
    loose = tmp_path / "scratch" / "Notes 2026!"
    loose.mkdir(parents=True)
    assert project_directory(loose) == loose
    assert project_name(loose) == "notes-2026"
    assert project_name(Path("/")) == "project"


def test_explicit_settings_win(
    projects: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    shop, billing = projects
    monkeypatch.setenv("OSTINATO_DBOS_PROJECT", "orders")
    monkeypatch.chdir(shop)
    named_in_shop = DbosSettings()
    monkeypatch.chdir(billing)
    named_in_billing = DbosSettings()
    # A named project is one project wherever it is named.
    assert named_in_shop.queue == named_in_billing.queue == "ostinato-turns-orders"
    assert named_in_shop.state_dir == named_in_billing.state_dir
    assert named_in_shop.state_dir.name == "orders"
    monkeypatch.setenv("OSTINATO_DBOS_QUEUE", "shared-turns")
    monkeypatch.setenv("OSTINATO_DBOS_STATE_DIR", str(shop / "state"))
    explicit = DbosSettings()
    assert (explicit.queue, explicit.state_dir) == ("shared-turns", shop / "state")
    monkeypatch.setenv("OSTINATO_DBOS_DATABASE_URL", "postgresql://u:secret@db/x")
    assert DbosSettings().system_database_url() == "postgresql://u:secret@db/x"


def test_ostinato_config_shows_the_project_its_queue_and_state(
    projects: tuple[Path, Path],
) -> None:
    shop, _ = projects
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")},
        "PYTHONPATH": str(ROOT),
        "OSTINATO_LOAD_PLUGINS": "dbos",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "ostinato.cli", "config", "--json"],
        cwd=shop,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    settings = {s["variable"]: s for s in json.loads(proc.stdout)["plugins"]["dbos"]["settings"]}
    assert settings["OSTINATO_DBOS_PROJECT"]["value"] == "shop-api"
    assert settings["OSTINATO_DBOS_QUEUE"]["value"] == "ostinato-turns-shop-api"
    state = Path(settings["OSTINATO_DBOS_STATE_DIR"]["value"])
    assert state.parent == Path(env["XDG_STATE_HOME"]) / "ostinato" / "dbos"
    assert {settings[v]["source"] for v in ("OSTINATO_DBOS_PROJECT", "OSTINATO_DBOS_QUEUE")} == {
        "default"
    }
