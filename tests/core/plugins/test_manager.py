"""Loading plugins from real entry points: broken, duplicate, allowed, blocked, misspelled."""

from __future__ import annotations

import warnings

import pytest

from ostinato.errors import PluginError
from ostinato.plugins import (
    ENTRY_POINT_GROUP,
    PluginInfo,
    PluginLoadWarning,
    PluginManager,
    PluginOrigin,
    hookimpl,
)
from tests.fakes.distributions import FakeDistributions

MODEL_PLUGIN = """
    from ostinato.plugins import hookimpl

    @hookimpl
    def register_chat_models(register):
        register("{name}", lambda model_name: model_name)
"""


def model_plugin(fakes: FakeDistributions, name: str, **kwargs: str) -> str:
    return fakes.plugin(name, MODEL_PLUGIN.format(name=name), **kwargs)


def load(**kwargs: object) -> PluginManager:
    strict = bool(kwargs.pop("strict", False))
    manager = PluginManager(strict=strict)
    manager.load_entry_points(**kwargs)  # type: ignore[arg-type]
    return manager


def names(manager: PluginManager) -> list[str]:
    return [info.name for info in manager.plugins]


def test_the_group_is_ostinato():
    assert ENTRY_POINT_GROUP == "ostinato"


def test_a_plugin_is_loaded_with_its_distribution_and_version(fake_distributions):
    module = model_plugin(fake_distributions, "acme", version="1.2.3")
    manager = load()
    assert manager.plugins == (
        PluginInfo("acme", "ostinato-acme", "1.2.3", PluginOrigin.ENTRY_POINT, module),
    )
    assert manager.info("acme").label == "plugin 'acme' (distribution ostinato-acme 1.2.3)"
    assert manager.failures == ()


def test_a_broken_plugin_is_reported_and_the_others_still_load(fake_distributions):
    model_plugin(fake_distributions, "good")
    fake_distributions.plugin("broken", "import not_a_module_anywhere\n", version="0.3")
    with pytest.warns(PluginLoadWarning) as caught:
        manager = load()
    assert names(manager) == ["good"]
    (failure,) = manager.failures
    assert failure.plugin.name == "broken"
    assert failure.phase == "import"
    assert failure.error == "ModuleNotFoundError: No module named 'not_a_module_anywhere'"
    lines = failure.message.splitlines()
    assert lines[0] == "plugin 'broken' (distribution ostinato-broken 0.3) failed to load:"
    assert "ModuleNotFoundError: No module named 'not_a_module_anywhere'" in lines[1]
    assert lines[-1] == (
        "fix: upgrade or reinstall ostinato-broken, or disable it with "
        "OSTINATO_DISABLE_PLUGINS=broken"
    )
    assert str(caught[0].message) == failure.message


def test_a_plugin_raising_anything_at_import_is_reported(fake_distributions):
    fake_distributions.plugin("boom", "raise RuntimeError('no licence key')\n")
    with pytest.warns(PluginLoadWarning):
        manager = load()
    assert manager.failures[0].error == "RuntimeError: no licence key"


def test_strict_mode_makes_a_broken_plugin_fatal(fake_distributions):
    fake_distributions.plugin("broken", "import not_a_module_anywhere\n")
    with pytest.raises(PluginError, match=r"plugin 'broken' .* failed to load") as caught:
        load(strict=True)
    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


def test_two_distributions_with_one_plugin_name_are_an_error_naming_both(fake_distributions):
    model_plugin(fake_distributions, "acme", distribution="ostinato-acme", version="1.0")
    model_plugin(fake_distributions, "acme", distribution="acme-fork", version="2.0")
    with pytest.raises(PluginError) as caught:
        load()
    message = str(caught.value)
    assert message.splitlines()[0] == "two plugins are named 'acme':"
    assert "distribution ostinato-acme 1.0" in message
    assert "distribution acme-fork 2.0" in message
    assert "OSTINATO_DISABLE_PLUGINS=" in message


def test_a_duplicate_can_be_resolved_by_disabling_one_distribution(fake_distributions):
    model_plugin(fake_distributions, "acme", distribution="ostinato-acme")
    model_plugin(fake_distributions, "acme", distribution="acme-fork")
    manager = load(disable=["acme-fork"])
    assert [(p.name, p.distribution) for p in manager.plugins] == [("acme", "ostinato-acme")]
    assert [s.plugin.distribution for s in manager.skipped] == ["acme-fork"]


def test_the_allow_list_loads_only_the_listed_plugins(fake_distributions):
    for name in ("a", "b", "c"):
        model_plugin(fake_distributions, name)
    manager = load(load=["a", "ostinato-c"])
    assert names(manager) == ["a", "c"]
    assert [(s.plugin.name, s.reason) for s in manager.skipped] == [
        ("b", "not listed in OSTINATO_LOAD_PLUGINS")
    ]


def test_an_empty_allow_list_loads_none(fake_distributions):
    model_plugin(fake_distributions, "a")
    assert names(load(load=[])) == []


def test_the_block_list_leaves_out_the_listed_plugins(fake_distributions):
    for name in ("a", "b"):
        model_plugin(fake_distributions, name)
    manager = load(disable=["B"])
    assert names(manager) == ["a"]
    assert [(s.plugin.name, s.reason) for s in manager.skipped] == [
        ("b", "listed in OSTINATO_DISABLE_PLUGINS")
    ]


def test_a_misspelled_list_entry_gets_a_warning_naming_the_closest(fake_distributions):
    model_plugin(fake_distributions, "openai")
    with pytest.warns(PluginLoadWarning, match="'opnai'.*\n.*did you mean 'openai'"):
        load(disable=["opnai"])


def test_a_misspelled_hook_is_caught_with_a_suggestion(fake_distributions):
    fake_distributions.plugin(
        "typo",
        """
        from ostinato.plugins import hookimpl

        @hookimpl
        def register_chat_model(register):
            register("typo", lambda model_name: None)
        """,
    )
    model_plugin(fake_distributions, "good")
    with pytest.warns(PluginLoadWarning):
        manager = load()
    assert names(manager) == ["good"]
    message = manager.failures[0].message
    assert "implements an unknown hook 'register_chat_model'" in message
    assert "did you mean 'register_chat_models'?" in message
    assert manager.failures[0].phase == "validate"


def test_a_misspelled_hook_is_fatal_in_strict_mode(fake_distributions):
    fake_distributions.plugin(
        "typo",
        """
        from ostinato.plugins import hookimpl

        @hookimpl
        def register_tool(register):
            pass
        """,
    )
    with pytest.raises(PluginError, match="did you mean 'register_tools'"):
        load(strict=True)


def test_a_hook_without_the_marker_is_caught(fake_distributions):
    fake_distributions.plugin("unmarked", "def register_tools(register):\n    pass\n")
    with pytest.warns(PluginLoadWarning):
        manager = load()
    assert "defines 'register_tools' without @hookimpl" in manager.failures[0].message


def test_a_hook_asking_for_an_argument_the_spec_lacks_is_caught(fake_distributions):
    fake_distributions.plugin(
        "greedy",
        """
        from ostinato.plugins import hookimpl

        @hookimpl
        def register_tools(register, registry):
            pass
        """,
    )
    with pytest.warns(PluginLoadWarning):
        manager = load()
    assert "invalid hook implementation" in manager.failures[0].message
    assert "registry" in manager.failures[0].message


def test_explicit_plugins_cannot_take_a_taken_name():
    manager = PluginManager()

    class One:
        @hookimpl
        def register_tools(self, register):
            pass

    manager.add_plugin(One(), PluginInfo("one"))
    with pytest.raises(PluginError, match="two plugins are named 'one'"):
        manager.add_plugin(One(), PluginInfo("one"))


def test_check_pending_hooks_reports_a_plugin_registered_behind_our_back():
    manager = PluginManager()

    class Sneaky:
        @hookimpl
        def register_everything(self, register):
            pass

    manager.register(Sneaky(), name="sneaky")
    with pytest.raises(PluginError, match="unknown hook 'register_everything'"):
        manager.check_pending_hooks()


def test_no_warning_when_all_is_well(fake_distributions):
    model_plugin(fake_distributions, "fine")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load(load=["fine"], disable=[])
