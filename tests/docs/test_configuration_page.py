"""docs/configuration.md names every variable of core and of every installed plugin."""

from __future__ import annotations

from pathlib import Path

import pytest

from ostinato.config import Settings, create_plugin_manager, load_settings, setting_fields
from ostinato.plugins import collect_registry

PAGE = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def _variables() -> list[tuple[str, str]]:
    settings = load_settings(Settings)
    registry = collect_registry(create_plugin_manager(settings))
    found = [("core", name) for f in setting_fields(Settings) for name in f.env_names]
    for registration in registry.settings.values():
        for field in setting_fields(registration.value):
            found.extend((registration.plugin.name, name) for name in field.env_names)
    return found


@pytest.mark.parametrize(("plugin", "variable"), _variables())
def test_every_variable_is_documented(plugin: str, variable: str) -> None:
    assert f"`{variable}`" in PAGE.read_text(encoding="utf-8"), (
        f"{variable} (of {plugin}) is missing from docs/configuration.md: add it to the "
        f"table of its plugin"
    )
