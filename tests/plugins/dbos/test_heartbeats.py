"""The adoption mechanism's table: a silent worker is claimed by exactly one live one."""

from __future__ import annotations

from pathlib import Path

import pytest

from ostinato_dbos import DbosSettings, default_sqlite_path
from ostinato_dbos._heartbeats import Heartbeats, sqlalchemy_url


def test_a_dead_worker_is_claimed_once_and_a_live_one_never(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'beats.sqlite3'}"
    dead, live, other = (Heartbeats(url, name) for name in ("dead", "live", "other"))
    try:
        for beats in (dead, live, other):
            beats.register()
        assert live.claim_dead(dead_after_seconds=60) == []  # all alive
        assert sorted(live.claim_dead(dead_after_seconds=-1)) == ["dead", "other"]
        assert other.claim_dead(dead_after_seconds=-1) == ["live"]  # the others are gone
        # Claimed: a beat says so, and does not bring the row back...
        assert [beats.beat() for beats in (dead, live, other)] == [False, False, False]
        assert live.claim_dead(dead_after_seconds=-1) == []  # ...so nothing to claim
        dead.register()  # restarted
        assert dead.beat()  # its own row again
        assert live.claim_dead(dead_after_seconds=-1) == ["dead"]
        assert live.claim_dead(dead_after_seconds=-1) == []  # claimed once only
    finally:
        for beats in (dead, live, other):
            beats.close()


def test_settings_default_to_sqlite_in_the_state_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("OSTINATO_DBOS_PROJECT", raising=False)
    monkeypatch.delenv("OSTINATO_DBOS_STATE_DIR", raising=False)
    monkeypatch.delenv("OSTINATO_DBOS_DATABASE_URL", raising=False)
    (tmp_path / "app" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "app")
    path = default_sqlite_path()
    assert path.parent.parent == tmp_path / "ostinato" / "dbos"  # the project's own folder
    assert path.parent.name.startswith("app-") and path.name == "dbos.sqlite3"
    settings = DbosSettings()
    assert settings.system_database_url() == f"sqlite:///{path}"
    monkeypatch.setenv("OSTINATO_DBOS_DATABASE_URL", "postgresql://u:secret@db/x")
    assert "secret" not in repr(DbosSettings())
    assert sqlalchemy_url("postgresql://u@db/x").drivername == "postgresql+psycopg"


def test_the_docs_state_the_sqlite_busy_timeout_the_code_uses() -> None:
    import inspect
    import re

    from dbos import _sys_db_sqlite

    from ostinato_dbos._heartbeats import SQLITE_BUSY_TIMEOUT

    # DBOS's own connections wait as long for a lock as the heartbeats' do.
    pragmas = re.findall(r"busy_timeout=(\d+)", inspect.getsource(_sys_db_sqlite))
    assert pragmas and {int(ms) / 1000 for ms in pragmas} == {SQLITE_BUSY_TIMEOUT}
    page = Path(__file__).resolve().parents[3] / "docs" / "durable.md"
    assert f"busy timeout ({SQLITE_BUSY_TIMEOUT:g} s)" in page.read_text(encoding="utf-8")
