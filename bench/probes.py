"""Fresh-process measurements: import time, time to a ready client, and peak memory.

Each probe runs in a new interpreter (so nothing is imported yet), pinned to the client
core, with compiled bytecode cached in a private folder (as an installed wheel has it).
The first run of each probe only warms that cache and is not counted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "IMPORT_PROBES",
    "READY_PROBES",
    "ImportProbe",
    "clean_python",
    "probe_env",
    "time_probe",
]


@dataclass(frozen=True, slots=True)
class ImportProbe:
    """Code whose run time is measured from a bare interpreter.

    Attributes:
        contender: whose cost it is.
        what: the row label in the report.
        code: the statements timed (``{base_url}`` is replaced by the server's URL).
        env: extra environment variables (``{base_url}`` replaced too).
    """

    contender: str
    what: str
    code: str
    env: Mapping[str, str] | None = None
    clean: bool = False  # run in the clean environment (only ostinato + ostinato-openai)


#: ``import <the framework>``.
IMPORT_PROBES: Final = (
    ImportProbe("floor", "import httpx", "import httpx"),
    ImportProbe("ostinato", "import ostinato", "import ostinato", clean=True),
    ImportProbe("pydantic-ai", "import pydantic_ai", "import pydantic_ai"),
    ImportProbe("langchain", "import langchain.agents", "import langchain.agents"),
    ImportProbe("openai-agents", "import agents", "import agents"),
)

_OSTINATO_ENV: Final = {
    "OSTINATO_MODEL": "openai:bench-k3-p2",
    "OSTINATO_OPENAI_BASE_URL": "{base_url}",
    "OSTINATO_OPENAI_API_KEY": "bench",
    # The workspace also installs a replacement tool advisor: pin the default one.
    "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR": "default",
}

_CHAT_CLIENT = "import ostinato\nclient = ostinato.chat_client()\nassert client.model is not None"

_FIRST_CONVERSATION = (
    "import asyncio\nfrom ostinato import ChatClient, tool\n"
    "from ostinato_openai import OpenAIChatModel\n"
    "@tool(description='Add two integers.')\nasync def add(a: int, b: int) -> int:\n"
    "    return a + b\n"
    "model = OpenAIChatModel(model='bench-k3-p2', base_url='{base_url}', api_key='bench', "
    "http_engine='%s')\n"
    "client = ChatClient.builder(model).default_tools(add).build()\n"
    "_start = _t.perf_counter()  # from here: the first conversation only\n"
    "asyncio.run(client.prompt('Add the numbers').call().acontent())"
)

#: From a bare interpreter to a client ready to send its first request; then the first
#: conversation (4 model calls) of a fresh process on each engine, timed on its own.
READY_PROBES: Final = (
    ImportProbe(
        "floor",
        "httpx.AsyncClient()",
        "import httpx, json\nclient = httpx.AsyncClient()",
    ),
    ImportProbe(
        "ostinato",
        "ostinato.chat_client() (auto-configured, openai plugin)",
        _CHAT_CLIENT,
        _OSTINATO_ENV,
        clean=True,
    ),
    ImportProbe(
        "ostinato",
        "ostinato.chat_client(), workspace venv (every plugin and group installed)",
        _CHAT_CLIENT,
        _OSTINATO_ENV,
    ),
    ImportProbe(
        "ostinato",
        "ChatClient + OpenAIChatModel, by hand",
        "from ostinato import ChatClient\nfrom ostinato_openai import OpenAIChatModel\n"
        "client = ChatClient.create(OpenAIChatModel(model='bench-k3-p2', base_url='{base_url}'))",
        clean=True,
    ),
    ImportProbe(
        "ostinato",
        "first conversation of a fresh process, httpx engine",
        _FIRST_CONVERSATION % "httpx",
        clean=True,
    ),
    ImportProbe(
        "ostinato",
        "first conversation of a fresh process, aiohttp engine (workspace venv)",
        _FIRST_CONVERSATION % "aiohttp",
    ),
    ImportProbe(
        "pydantic-ai",
        "Agent(OpenAIChatModel(...))",
        "from pydantic_ai import Agent\nfrom pydantic_ai.models.openai import OpenAIChatModel\n"
        "from pydantic_ai.providers.openai import OpenAIProvider\n"
        "agent = Agent(OpenAIChatModel('bench-k3-p2', provider=OpenAIProvider("
        "base_url='{base_url}', api_key='bench')))",
    ),
    ImportProbe(
        "langchain",
        "create_agent(ChatOpenAI(...))",
        "from langchain.agents import create_agent\nfrom langchain_openai import ChatOpenAI\n"
        "agent = create_agent(ChatOpenAI(model='bench-k3-p2', base_url='{base_url}', "
        "api_key='bench'), tools=[])",
    ),
    ImportProbe(
        "openai-agents",
        "Agent(OpenAIChatCompletionsModel(...))",
        "from agents import Agent, OpenAIChatCompletionsModel\nfrom openai import AsyncOpenAI\n"
        "agent = Agent(name='bench', model=OpenAIChatCompletionsModel(model='bench-k3-p2', "
        "openai_client=AsyncOpenAI(base_url='{base_url}', api_key='bench')))",
    ),
)

_TIMER: Final = """
import time as _t
_start = _t.perf_counter()
{code}
print(_t.perf_counter() - _start)
"""


def probe_env(pycache: str) -> dict[str, str]:
    """The environment of a probe or worker: bytecode cached under ``pycache``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def clean_python(folder: str) -> str | None:
    """A fresh virtual environment in ``folder`` holding only ``ostinato`` and
    ``ostinato-openai`` (what a user installs), made with uv; its interpreter, or ``None``
    when uv is not available or the install fails (the workspace's is used then)."""
    uv = os.environ.get("UV") or shutil.which("uv")
    if uv is None:
        return None
    root = Path(__file__).resolve().parent.parent
    venv = Path(folder) / "clean-venv"
    python = venv / "bin" / "python"
    commands = [
        [uv, "venv", "--quiet", "--python", sys.executable, str(venv)],
        [
            uv,
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            str(root / "core"),
            str(root / "plugins" / "openai"),
        ],
    ]
    for command in commands:
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
        if done.returncode != 0:
            print(f"clean environment not made ({done.stderr.strip()})", file=sys.stderr)
            return None
    return str(python)


def time_probe(
    probe: ImportProbe,
    *,
    runs: int,
    base_url: str,
    pin: Sequence[str] = (),
    pycache: str | None = None,
    python: str | None = None,
) -> list[float]:
    """Seconds ``probe.code`` took in each of ``runs`` fresh interpreters (after one
    unmeasured run that fills the bytecode cache).

    Raises:
        RuntimeError: the probe failed (its stderr is in the message).
    """
    with tempfile.TemporaryDirectory() as scratch:
        env = probe_env(pycache or scratch)
        env.update({k: v.format(base_url=base_url) for k, v in (probe.env or {}).items()})
        code = _TIMER.format(code=probe.code.format(base_url=base_url))
        timings = []
        for i in range(runs + 1):
            proc = subprocess.run(
                [*pin, python or sys.executable, "-c", code],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
                check=False,
            )
            if proc.returncode != 0:
                raise RuntimeError(
                    f"probe {probe.contender}: {probe.what!r} failed (exit {proc.returncode}):\n"
                    f"{proc.stderr.strip()}"
                )
            if i:
                timings.append(float(json.loads(proc.stdout.strip().splitlines()[-1])))
        return timings
