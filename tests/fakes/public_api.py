"""The public-surface checks every plugin package takes, written once.

A :class:`Surface` names one plugin package and the names it must export; the checks
say its surface is deliberate: the package exports exactly the intended names (lazily,
an unknown name raising ``AttributeError``), every module has a docstring and ``__all__``,
every exported class and function (and their public members) is documented, modules stay
under 400 lines, and the README's examples run and print what they say.

``tests/plugins/test_public_surfaces.py`` runs them over a table of surfaces, one per
plugin package.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from tests.docs.test_snippets import snippets

__all__ = [
    "Surface",
    "check_documented",
    "check_exports",
    "check_readme_runs",
    "check_small",
    "public_members",
]

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"


def public_members(cls: type) -> list[tuple[str, object]]:
    """The public methods and properties ``cls`` defines itself (static and class methods
    unwrapped to their functions)."""
    members = []
    for attr, value in vars(cls).items():
        if attr.startswith("_"):
            continue
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if isinstance(value, property) or inspect.isfunction(value):
            members.append((attr, value))
    return members


@dataclass(frozen=True)
class Surface:
    """One package's intended exports, and the ``plugins/`` folder whose README runs."""

    package: ModuleType
    names: frozenset[str]
    readme: str | None = None

    @property
    def modules(self) -> list[str]:
        """The package and every module under it, by dotted name."""
        prefix = self.package.__name__
        found = pkgutil.walk_packages(self.package.__path__, f"{prefix}.")
        return sorted([prefix] + [m.name for m in found])

    @property
    def sources(self) -> list[Path]:
        """The package's own ``*.py`` files."""
        return sorted(Path(str(self.package.__file__)).parent.glob("*.py"))


def check_exports(package: ModuleType, names: frozenset[str] | set[str]) -> None:
    """``package`` exports exactly ``names``, each resolving, and refuses an unknown one."""
    assert set(package.__all__) == names
    assert dir(package) == sorted(names)
    for name in names:
        assert getattr(package, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        package.Nope  # noqa: B018


def check_documented(name: str, prefix: str) -> None:
    """Module ``name`` has a docstring and an ``__all__`` list, and each class and function
    it exports from under ``prefix`` (and each of their public members) has its own."""
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no module docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__ list"
    for export in module.__all__:
        value = getattr(module, export)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        if not getattr(value, "__module__", "").startswith(prefix):
            continue
        assert inspect.getdoc(value), f"{name}.{export} has no docstring"
        if inspect.isclass(value):
            for attr, member in public_members(value):
                assert member.__doc__, f"{name}.{export}.{attr} has no docstring"


def check_small(path: Path) -> None:
    """The module at ``path`` is under 400 lines."""
    assert len(path.read_text(encoding="utf-8").splitlines()) < 400


def check_readme_runs(folder: str) -> None:
    """``plugins/<folder>/README.md`` has examples; each runs, in one namespace, and prints
    the output block that follows it, where one does."""
    namespace: dict[str, object] = {"__name__": "readme"}
    found = snippets((PLUGINS / folder / "README.md").read_text(encoding="utf-8"))
    assert found, "the README has an example"
    for number, (code, expected) in enumerate(found, 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"README.md#snippet{number}", "exec"), namespace)
        if expected is not None:
            got = "\n".join(line.rstrip() for line in out.getvalue().strip().splitlines())
            assert got == expected.strip(), f"snippet {number}"
