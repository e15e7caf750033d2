"""lazy_exports: a package's names imported on first use, kept once imported."""

from __future__ import annotations

import sys
import types

import pytest

from ostinato._lazy import lazy_names
from ostinato.plugins import lazy_exports


@pytest.fixture
def package(monkeypatch):
    module = types.ModuleType("acme_lazy")
    module.__all__ = ["dumps", "JSONDecoder", "light"]  # type: ignore[attr-defined]
    module.light = 1  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "acme_lazy", module)
    module.__getattr__, module.__dir__ = lazy_exports(  # type: ignore[attr-defined]
        "acme_lazy", {"dumps": "json", "JSONDecoder": "json.decoder:JSONDecoder"}
    )
    return module


def test_a_name_is_imported_on_first_use_and_then_kept(package):
    import json
    import json.decoder

    assert "dumps" not in vars(package)
    assert package.dumps is json.dumps
    assert vars(package)["dumps"] is json.dumps
    assert package.JSONDecoder is json.decoder.JSONDecoder


def test_an_unknown_name_is_an_attribute_error_naming_the_module(package):
    with pytest.raises(AttributeError, match="module 'acme_lazy' has no attribute 'nope'"):
        _ = package.nope


def test_dir_lists_the_public_and_the_lazy_names(package):
    assert dir(package) == ["JSONDecoder", "dumps", "light"]


def test_a_spec_without_a_module_is_refused():
    with pytest.raises(ValueError, match="names no module"):
        lazy_exports("acme_lazy", {"x": ":x"})


def test_lazy_package_derives_all_from_the_eager_names_and_the_map(monkeypatch):
    from ostinato.plugins import lazy_package

    module = types.ModuleType("acme_package")
    monkeypatch.setitem(sys.modules, "acme_package", module)
    namespace = {
        "__name__": "acme_package",
        "__version__": "1.0",
        "TYPE_CHECKING": False,
        "lazy_package": lazy_package,
        "json": sys.modules["json"],  # a module: not exported
        "_private": 1,
        "light": 1,
    }
    exported, getattr_, dir_ = lazy_package("acme_package", namespace, {"dumps": "json"})
    assert exported == ["__version__", "light", "dumps"]
    module.__all__ = exported  # type: ignore[attr-defined]
    module.__getattr__, module.__dir__ = getattr_, dir_  # type: ignore[attr-defined]
    import json

    assert module.dumps is json.dumps
    assert lazy_names("acme_package") == {"dumps": "json"}
    assert lazy_names("acme_nothing") == {}
