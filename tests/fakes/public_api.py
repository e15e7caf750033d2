"""The public-surface checks every plugin's ``test_public_api.py`` runs, written once.

:func:`public_surface_tests` builds, for one plugin package, the test functions that
check its surface is deliberate: the package exports exactly the intended names (lazily,
an unknown name raising ``AttributeError``), every module has a docstring and ``__all__``,
every exported class and function (and their public members) is documented, modules stay
under 400 lines, and the README's examples run and print what they say. A plugin's test
module assigns the returned functions to ``test_*`` names, so pytest collects them there.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from tests.docs.test_snippets import snippets

__all__ = ["PublicSurfaceTests", "public_surface_tests"]

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"


@dataclass(frozen=True)
class PublicSurfaceTests:
    """The test functions for one package; a check the plugin does not take is ``None``."""

    exports: Callable[[], None]
    documented: Callable[[str], None]
    small: Callable[[Path], None]
    readme: Callable[[], None] | None


def public_surface_tests(
    package: ModuleType, names: set[str], *, readme: str | None = None
) -> PublicSurfaceTests:
    """The public-surface tests of ``package``, which must export exactly ``names``.

    ``readme`` names the plugin's folder under ``plugins/`` whose README's examples run
    (each one's printed text matching the output block that follows it, where one does).
    """
    prefix = package.__name__
    modules = sorted(
        [prefix] + [m.name for m in pkgutil.walk_packages(package.__path__, f"{prefix}.")]
    )
    sources = sorted(Path(str(package.__file__)).parent.glob("*.py"))

    def exports() -> None:
        assert set(package.__all__) == names
        assert dir(package) == sorted(names)
        for name in names:
            assert getattr(package, name) is not None
        with pytest.raises(AttributeError, match="no attribute 'Nope'"):
            package.Nope  # noqa: B018

    @pytest.mark.parametrize("name", modules)
    def documented(name: str) -> None:
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
                for attr, member in vars(value).items():
                    if attr.startswith("_"):
                        continue
                    if isinstance(member, staticmethod | classmethod):
                        member = member.__func__
                    if isinstance(member, property) or inspect.isfunction(member):
                        assert member.__doc__, f"{name}.{export}.{attr} has no docstring"

    @pytest.mark.parametrize("path", sources, ids=lambda p: p.name)
    def small(path: Path) -> None:
        assert len(path.read_text(encoding="utf-8").splitlines()) < 400

    def runs(folder: str) -> Callable[[], None]:
        def readme_runs() -> None:
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

        return readme_runs

    return PublicSurfaceTests(exports, documented, small, None if readme is None else runs(readme))
