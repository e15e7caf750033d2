"""The plugin's public surface is deliberate: every module has a docstring and ``__all__``,
every exported name exists and is documented, the package exports exactly these names,
modules stay small, and the README's code runs."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import ostinato_memory_redis as package
from tests.docs.test_snippets import snippets

PACKAGE = {
    "DEFAULT_KEY_PREFIX",
    "RedisChatMemoryRepository",
    "RedisMemorySettings",
    "__version__",
    "create_redis_repository",
}
PREFIX = package.__name__
MODULES = sorted([PREFIX] + [m.name for m in pkgutil.walk_packages(package.__path__, f"{PREFIX}.")])
SOURCES = Path(package.__file__).parent
README = Path(__file__).resolve().parents[3] / "plugins" / "memory-redis" / "README.md"


def test_the_package_exports_exactly_the_intended_names():
    assert set(package.__all__) == PACKAGE
    assert dir(package) == sorted(PACKAGE)
    for name in PACKAGE:
        assert getattr(package, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        package.Nope  # noqa: B018


@pytest.mark.parametrize("name", MODULES)
def test_every_module_documents_itself_and_its_exports(name):
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no module docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__ list"
    for export in module.__all__:
        value = getattr(module, export)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        if not getattr(value, "__module__", "").startswith(PREFIX):
            continue
        assert inspect.getdoc(value), f"{name}.{export} has no docstring"
        if inspect.isclass(value):
            for attr, member in vars(value).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__
                if isinstance(member, property) or inspect.isfunction(member):
                    assert member.__doc__, f"{name}.{export}.{attr} has no docstring"


@pytest.mark.parametrize("path", sorted(SOURCES.glob("*.py")), ids=lambda p: p.name)
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) < 400


def test_the_readme_code_runs_without_a_server():
    # Building a repository connects to nothing: the README's code runs as written.
    namespace: dict[str, object] = {"__name__": "readme"}
    found = snippets(README.read_text(encoding="utf-8"))
    assert found, "the README has an example"
    for number, (code, _) in enumerate(found, 1):
        exec(compile(code, f"README.md#snippet{number}", "exec"), namespace)
