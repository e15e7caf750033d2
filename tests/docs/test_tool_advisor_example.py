"""The replacement tool advisor of docs/plugins.md, run as written, honours core's
``OSTINATO_TOOLS__*`` settings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def example_source() -> str:
    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    section = page.split("## A replacement tool advisor", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 2, "the section has the plugin and the snippet using it"
    return "\n".join(blocks)


def run_example(tmp_path: Path, env: dict[str, str]) -> list[str]:
    script = tmp_path / "example.py"
    script.write_text(example_source(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")}, **env},
        cwd=tmp_path,
        timeout=60,
        check=True,
    )
    return done.stdout.splitlines()


def test_the_example_honours_the_iteration_cap_of_the_environment(tmp_path):
    lines = run_example(tmp_path, {"OSTINATO_TOOLS__MAX_ITERATIONS": "3"})
    assert lines == [
        "counting - the only installed replacement of 'default'",
        "CountingToolAdvisor",
        "3",
    ]


def test_the_example_passes_on_every_loop_setting(tmp_path):
    script = example_source() + (
        "\nadvisor = container.chat_client().tool_advisor\n"
        "loop = advisor.settings()\n"
        'print(loop["final_answer_on_limit"], loop["usage_limits"].model_requests)\n'
    )
    (tmp_path / "check.py").write_text(script, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "check.py"],
        capture_output=True,
        text=True,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("OSTINATO_")},
            "OSTINATO_TOOLS__FINAL_ANSWER_ON_LIMIT": "true",
            "OSTINATO_TOOLS__MAX_MODEL_REQUESTS": "7",
        },
        cwd=tmp_path,
        timeout=60,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "True 7"
