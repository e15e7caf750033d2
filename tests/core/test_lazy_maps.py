"""Every package with lazy names writes each once for the run time (its map) and once for
type checkers (its ``if TYPE_CHECKING:`` imports), and the two agree; ``__all__`` is
derived from the map and the eager re-exports (see ``ostinato/_lazy.py``).

Checked over core's packages and every plugin package, by reading their sources.
"""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from ostinato._lazy import lazy_names

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "core" / "src", *sorted((ROOT / "plugins").glob("*/src"))]


@dataclass(frozen=True)
class Facade:
    """What one package's ``__init__.py`` declares, read without running it."""

    name: str
    path: Path
    tree: ast.Module

    def type_checking_block(self) -> ast.If:
        blocks = [
            n
            for n in self.tree.body
            if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"
        ]
        assert len(blocks) == 1, f"{self.path}: expected one `if TYPE_CHECKING:` block"
        return blocks[0]

    def static_lazy(self) -> dict[str, str]:
        """``{name: "module" or "module:attribute"}`` from the ``TYPE_CHECKING`` imports."""
        found: dict[str, str] = {}
        for node in self.type_checking_block().body:
            assert isinstance(node, ast.ImportFrom) and node.module, (
                f"{self.path}:{node.lineno}: only `from module import X as X` belongs here"
            )
            for alias in node.names:
                name = alias.asname or alias.name
                assert alias.asname is not None, (
                    f"{self.path}:{node.lineno}: write `{alias.name} as {alias.name}` (a type "
                    "checker exports a lazy name only with the redundant alias)"
                )
                found[name] = node.module if alias.name == name else f"{node.module}:{alias.name}"
        return found

    def runtime_map(self) -> dict[str, str]:
        """The map given to ``lazy_package`` in the ``else`` branch, read as a literal."""
        orelse = self.type_checking_block().orelse
        calls = [
            n
            for statement in orelse
            for n in ast.walk(statement)
            if isinstance(n, ast.Call) and ast.unparse(n.func) == "lazy_package"
        ]
        assert len(calls) == 1, f"{self.path}: the `else` branch calls lazy_package once"
        value = ast.literal_eval(calls[0].args[2])
        assert isinstance(value, dict)
        return value

    def eager_exports(self) -> set[str]:
        """The names re-exported at import time (``import X as X``), and ``__version__``."""
        found: set[str] = set()
        for node in self.tree.body:
            if isinstance(node, ast.ImportFrom):
                found.update(a.name for a in node.names if a.asname == a.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found.update(
                    t.id for t in targets if isinstance(t, ast.Name) and t.id == "__version__"
                )
        return found


def _facades() -> list[Facade]:
    found = []
    for source in SOURCES:
        for path in sorted(source.rglob("__init__.py")):
            text = path.read_text(encoding="utf-8")
            if "lazy_package(" not in text or path.parent.name == "_lazy":
                continue
            name = ".".join(path.parent.relative_to(source).parts)
            found.append(Facade(name, path, ast.parse(text)))
    return found


FACADES = _facades()


def test_core_and_the_plugins_have_facades_with_lazy_names():
    names = {f.name for f in FACADES}
    assert {"ostinato", "ostinato.durable", "ostinato.tools", "ostinato_openai"} <= names


@pytest.mark.parametrize("facade", FACADES, ids=lambda f: f.name)
def test_the_type_checking_imports_and_the_map_name_the_same_things(facade: Facade):
    static, runtime = facade.static_lazy(), facade.runtime_map()
    assert static == runtime, (
        f"{facade.path}: the `if TYPE_CHECKING:` imports and the lazy_package map differ: "
        f"only imported {sorted(static.keys() - runtime.keys())}, only mapped "
        f"{sorted(runtime.keys() - static.keys())}, other module "
        f"{sorted(n for n in static.keys() & runtime.keys() if static[n] != runtime[n])}"
    )


@pytest.mark.parametrize("facade", FACADES, ids=lambda f: f.name)
def test_type_checkers_never_see_an_all_they_cannot_read(facade: Facade):
    # mypy makes every name of a module private when its __all__ is not a literal list.
    assigned = [
        n.lineno
        for n in facade.tree.body
        for t in getattr(n, "targets", [])
        if isinstance(t, ast.Name) and t.id == "__all__"
    ]
    assert assigned == [], f"{facade.path}:{assigned}: assign __all__ in the `else` branch"


@pytest.mark.parametrize("facade", FACADES, ids=lambda f: f.name)
def test_all_is_the_eager_re_exports_and_the_map(facade: Facade):
    package = pytest.importorskip(facade.name)
    assert lazy_names(facade.name) == facade.runtime_map()
    expected = facade.eager_exports() | facade.runtime_map().keys()
    assert sorted(package.__all__) == sorted(expected), (
        f"{facade.path}: __all__ and the static re-exports differ: only in __all__ "
        f"{sorted(set(package.__all__) - expected)} (re-export them as `X as X`), only "
        f"re-exported {sorted(expected - set(package.__all__))}"
    )
    for name in facade.runtime_map():
        assert getattr(package, name) is getattr(
            importlib.import_module(facade.runtime_map()[name].partition(":")[0]),
            facade.runtime_map()[name].partition(":")[2] or name,
        )
