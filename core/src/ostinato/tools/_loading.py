"""Tool sources: load tool functions and objects named by a string.

The command line's ``--tools`` and a durable worker resolving the tools a turn names both
load through here. A source is ``module:attribute`` (``pkg.tools:WeatherTools``), a module
(``pkg.tools``: its module-level ``@tool`` functions), a Python file
(``examples/weather.py``) or a file and an attribute (``examples/weather.py:get_weather``).
An attribute may be a ``@tool`` function, an object with ``@tool`` methods, a class (made
with no arguments), a ``ToolCallback`` or a list of these. The working directory is
importable, as with ``python -m``.

A source that cannot be loaded says where: a syntax error or an exception while
importing names the file and line; an attribute the module lacks lists what the module
has (its tools, then its other callables).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import traceback
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from ostinato.errors import ConfigurationError
from ostinato.tools import ToolCallback, tool_callbacks

__all__ = ["load_tools", "resolve_tool_source"]

_ATTRIBUTE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_FIX: Final = (
    "fix: write --tools module:attribute (e.g. mypkg.tools:WeatherTools), a module, or the "
    "path of a .py file (e.g. examples/weather.py)"
)


def _fail(source: str, problem: str) -> ConfigurationError:
    return ConfigurationError(f"--tools {source!r}: {problem}\n{_FIX}")


def _import_failed(source: str, where: str, exc: Exception) -> ConfigurationError:
    """Importing ``where`` raised ``exc``: the error names the file and line at fault."""
    if isinstance(exc, SyntaxError):
        line = f"{exc.filename}:{exc.lineno}" if exc.filename else f"line {exc.lineno}"
        column = f", column {exc.offset}" if exc.offset else ""
        text = f"\n  {exc.text.rstrip()}" if exc.text and exc.text.strip() else ""
        return ConfigurationError(
            f"--tools {source!r}: {type(exc).__name__} in {line}{column}: {exc.msg}{text}\n"
            f"fix: correct the Python at {line}"
        )
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if "importlib" not in f.filename and "<frozen" not in f.filename]
    if not own:
        return _fail(source, f"importing {where} failed: {type(exc).__name__}: {exc}")
    line = f"{own[-1].filename}:{own[-1].lineno}"
    return ConfigurationError(
        f"--tools {source!r}: importing {where} failed at {line}: {type(exc).__name__}: {exc}\n"
        f"fix: correct {line} (or run with --debug for the whole traceback)"
    )


def _is_tools(value: object) -> bool:
    from ostinato.tools import tool_spec_of

    if tool_spec_of(value) is not None or isinstance(value, ToolCallback):
        return True
    if isinstance(value, type):
        return any(tool_spec_of(v) is not None for v in vars(value).values())
    if isinstance(value, list | tuple):
        return bool(value) and all(_is_tools(v) for v in value)
    return False


def _names(names: list[str], shown: int = 8) -> str:
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _missing_attribute(
    source: str, module: types.ModuleType, shown: str, attribute: str
) -> ConfigurationError:
    """``module`` has no ``attribute``: the error lists what it has."""
    tools, others = [], []
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        if _is_tools(value):
            tools.append(name)
        elif callable(value) and getattr(value, "__module__", None) == module.__name__:
            others.append(name)
    has = [
        f"{kind}: {_names(names)}"
        for kind, names in (("tools", tools), ("other callables", others))
        if names
    ]
    offer = "; ".join(has) if has else "no tools and no callables"
    problem = f"--tools {source!r}: {shown} has no attribute {attribute!r} ({offer})"
    if tools:
        fix = f"fix: name one of its tools, e.g. --tools {source.rpartition(':')[0]}:{tools[0]}"
    else:
        fix = "fix: name a module or file that defines @tool functions, or an attribute of one"
    return ConfigurationError(f"{problem}\n{fix}")


def _split(source: str) -> tuple[str, str | None]:
    target, sep, attribute = source.rpartition(":")
    if sep and _ATTRIBUTE.fullmatch(attribute):
        return target, attribute
    return source, None


def _is_path(target: str) -> bool:
    return target.endswith(".py") or os.sep in target or "/" in target


def _import_file(source: str, target: str) -> types.ModuleType:
    path = Path(target).expanduser()
    if not path.is_file():
        raise _fail(source, f"no such file: {path}")
    name = f"ostinato_cli_tools_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise _fail(source, f"{path} cannot be imported as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pydantic look their module up
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise _import_failed(source, str(path), exc) from exc
    return module


def _import_module(source: str, target: str) -> types.ModuleType:
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        raise _fail(source, f"no module named {exc.name or target!r}") from exc
    except Exception as exc:
        raise _import_failed(source, target, exc) from exc
    finally:
        if added:
            sys.path.remove(cwd)


def resolve_tool_source(source: str) -> object:
    """The object ``source`` names: a module, or an attribute of one (classes instantiated).

    Raises:
        ConfigurationError: the module, file or attribute does not exist, or importing
            or instantiating it failed.
    """
    target, attribute = _split(source.strip())
    if not target:
        raise _fail(source, "nothing to load")
    module = _import_file(source, target) if _is_path(target) else _import_module(source, target)
    if attribute is None:
        return module
    value: Any = module
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            shown = target if _is_path(target) else module.__name__
            raise _missing_attribute(source, module, shown, attribute) from None
    if isinstance(value, type) and not isinstance(value, ToolCallback):
        try:
            value = value()
        except Exception as exc:
            raise _fail(
                source, f"could not create {value.__name__}(): {type(exc).__name__}: {exc}"
            ) from exc
    return value


def load_tools(sources: Iterable[str]) -> list[ToolCallback]:
    """The tool callbacks of every source, in order (see the module docstring).

    Raises:
        ConfigurationError: a source cannot be loaded, holds no tools, or two tools share
            a name.
    """
    objects: list[object] = []
    for source in sources:
        value = resolve_tool_source(source)
        items = value if isinstance(value, list | tuple) else [value]
        if isinstance(value, types.ModuleType) and not _has_tools(value):
            raise _fail(source, f"{value.__name__} has no module-level @tool functions")
        objects.extend(items)
    try:
        return tool_callbacks(*objects)
    except ConfigurationError as exc:
        raise ConfigurationError(f"--tools: {exc}\n{_FIX}") from exc


def _has_tools(module: types.ModuleType) -> bool:
    """Whether ``module`` defines (or imports) at least one ``@tool`` function."""
    from ostinato.tools import tool_spec_of

    return any(tool_spec_of(value) is not None for value in vars(module).values())
