"""``import ostinato`` stays cheap: a fixed set of standard-library modules, none of the
heavy libraries, no thread.

How long the import takes is measured by the benchmark (``bench/``, against its 150 ms
target), never here: a wall-clock assertion fails on a loaded machine. What makes the
import slow is what it loads, and that is checked exactly: a module the import did not
load before fails the test, named with the chain of imports that brought it in, and
either loads on first use instead or, when every ``import ostinato`` needs it, joins
:data:`STDLIB_ALLOWED` deliberately. The number of ostinato's own modules it loads is
bounded the same way (:data:`OSTINATO_MODULES_MAX`): each costs a file read and its
execution, on every start.
"""

from __future__ import annotations

import json
import subprocess
import sys

# Only their own layers may import these: never the package itself.
HEAVY_MODULES = ("httpx", "aiohttp", "pluggy", "dependency_injector", "pydantic_settings")

# The standard-library top-level modules ``import ostinato`` may load. The runtime under
# the sync faces (threading, queue, logging, asyncio), the cancel scope, the event
# classes and the approval machinery load on first use.
STDLIB_ALLOWED = frozenset(
    {
        "__future__",
        "_ast",
        "_collections",
        "_contextvars",
        "_functools",
        "_json",
        "_opcode",
        "_operator",
        "_sre",
        "_string",  # with string: the parser of PromptTemplate, exported by ostinato
        "_typing",
        "_weakrefset",
        "ast",
        "collections",
        "contextlib",
        "contextvars",
        "copy",
        "copyreg",
        "dataclasses",
        "dis",
        "enum",
        "functools",
        "importlib",
        "inspect",
        "itertools",
        "json",
        "keyword",
        "linecache",
        "math",
        "opcode",
        "operator",
        "re",
        "reprlib",
        "string",
        "token",
        "tokenize",
        "types",
        "typing",
        "warnings",
        "weakref",
    }
)

# How many of ostinato's own modules ``import ostinato`` may load. Raise it deliberately,
# when every import of ostinato needs a new module; a module needed only by some uses
# loads on first use (a lazy export, or an import inside the function). 64: the advisor
# chain carries the unit stack (``ostinato.units._stack``). 66: the exceptions are a
# package of three modules (``ostinato.errors``, ``._base``, ``._model``) so that no module
# passes 400 lines.
OSTINATO_MODULES_MAX = 66

_PROBE = f"""
import json, sys
HEAVY = {HEAVY_MODULES!r}
before = set(sys.modules)
import ostinato
loaded = sorted(set(sys.modules) - before)
import threading
print(json.dumps({{
    "loaded": loaded,
    "modules": sorted(name for name in sys.modules if name.split(".")[0] in HEAVY),
    "threads": [t.name for t in threading.enumerate()],
}}))
"""


def probe() -> dict[str, object]:
    """Import ostinato in a fresh interpreter (``-X importtime``, for the chains) and
    report what it loaded, the heavy libraries among them, and the threads running."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", _PROBE],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, object] = json.loads(proc.stdout)
    result["chains"] = import_chains(proc.stderr)
    return result


def import_chains(importtime: str) -> dict[str, list[str]]:
    """``{module: [module, its importer, ..., the top-level import]}`` from the output
    of ``-X importtime``, which lists each module after the ones it imported, indented
    two spaces more per level."""
    rows: list[tuple[int, str]] = []
    for line in importtime.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        name = line.rsplit("|", 1)[1]
        stripped = name.lstrip(" ")
        if stripped == "imported package":
            continue
        rows.append(((len(name) - len(stripped)) // 2, stripped.strip()))
    chains: dict[str, list[str]] = {}
    for index, (depth, name) in enumerate(rows):
        chain, level = [name], depth
        for later_depth, later in rows[index + 1 :]:
            if later_depth < level:
                chain.append(later)
                level = later_depth
        chains.setdefault(name, chain)
    return chains


def test_import_ostinato_loads_only_the_allowed_standard_library_modules():
    result = probe()
    loaded: list[str] = result["loaded"]  # type: ignore[assignment]
    chains: dict[str, list[str]] = result["chains"]  # type: ignore[assignment]
    stdlib = {name for name in loaded if name.split(".")[0] in sys.stdlib_module_names}
    new = sorted(name for name in stdlib if name.split(".")[0] not in STDLIB_ALLOWED)
    found = [f"{name} (imported by {' <- '.join(chains.get(name, [name])[1:])})" for name in new]
    assert not found, (
        "import ostinato now loads standard-library modules it did not: "
        + "; ".join(found)
        + ". Import them where they are first used (inside the function, or a lazy "
        "export), or, if every import of ostinato needs them, add them to STDLIB_ALLOWED."
    )


def test_import_ostinato_loads_a_bounded_number_of_its_own_modules():
    result = probe()
    loaded: list[str] = result["loaded"]  # type: ignore[assignment]
    own = [name for name in loaded if name.split(".")[0] == "ostinato"]
    assert len(own) <= OSTINATO_MODULES_MAX, (
        f"import ostinato now loads {len(own)} of its own modules, more than "
        f"OSTINATO_MODULES_MAX = {OSTINATO_MODULES_MAX}: {', '.join(own)}. Load the new ones "
        "on first use (a lazy export, or an import inside the function), or, if every "
        "import of ostinato needs them, raise OSTINATO_MODULES_MAX."
    )


def test_the_hot_path_does_not_load_the_whole_units_package_nor_durable():
    # The advisor chain carries a unit stack: the units package's other modules (the unit
    # values, codecs, streams, memory) load only when a unit is made or a name is used,
    # and the durable package not at all.
    loaded: list[str] = probe()["loaded"]  # type: ignore[assignment]
    durable = [name for name in loaded if name.startswith("ostinato.durable")]
    units = [name for name in loaded if name.startswith("ostinato.units")]
    assert durable == []
    assert sorted(units) == [
        "ostinato.units",
        "ostinato.units._failure",
        "ostinato.units._stack",
        "ostinato.units._unit",
    ]


def test_the_chain_of_a_module_names_its_importers():
    # The message of the test above depends on this reading of -X importtime.
    stderr = "\n".join(
        (
            "import time: self [us] | cumulative | imported package",
            "import time:        10 |         10 |         threading",
            "import time:        10 |         20 |       ostinato.runtime._cancel_scope",
            "import time:        10 |         30 |     ostinato.advisors._tool_loop",
            "import time:        10 |         10 |     ostinato.events",
            "import time:        10 |         50 |   ostinato.advisors",
            "import time:        10 |         60 | ostinato",
        )
    )
    chains = import_chains(stderr)
    assert chains["threading"] == [
        "threading",
        "ostinato.runtime._cancel_scope",
        "ostinato.advisors._tool_loop",
        "ostinato.advisors",
        "ostinato",
    ]
    assert chains["ostinato.events"] == ["ostinato.events", "ostinato.advisors", "ostinato"]


def test_import_ostinato_does_not_import_heavy_libraries():
    result = probe()
    assert result["modules"] == [], f"import ostinato imported {result['modules']}"


def test_import_ostinato_starts_no_thread():
    assert probe()["threads"] == ["MainThread"]
