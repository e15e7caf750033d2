"""The plugin's public surface is deliberate: the package exports exactly these names,
every module has a docstring and ``__all__``, and every exported class and function (and
their public members) is documented."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import ostinato_mcp

PACKAGE = {
    "DEFAULT_MAX_RESULT_CHARS",
    "McpConfig",
    "McpConfigError",
    "McpServer",
    "McpServerConfig",
    "McpSettings",
    "McpTool",
    "McpToolMetadata",
    "McpToolset",
    "__version__",
    "load_mcp_config",
    "parse_mcp_config",
}

MODULES = sorted(
    ["ostinato_mcp"]
    + [m.name for m in pkgutil.walk_packages(ostinato_mcp.__path__, "ostinato_mcp.")]
)


def test_the_package_exports_exactly_the_intended_names():
    assert set(ostinato_mcp.__all__) == PACKAGE
    assert dir(ostinato_mcp) == sorted(PACKAGE)


@pytest.mark.parametrize("name", MODULES)
def test_every_module_documents_itself_and_its_exports(name):
    module = importlib.import_module(name)
    assert module.__doc__ and module.__doc__.strip(), f"{name} has no module docstring"
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__ list"
    for export in module.__all__:
        value = getattr(module, export)
        if not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        if not value.__module__.startswith("ostinato_mcp"):
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
