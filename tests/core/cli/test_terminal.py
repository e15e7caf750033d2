"""``TerminalRenderer``: what a turn looks like on stdout and stderr."""

from __future__ import annotations

import asyncio
import io

from ostinato.cli._observer import ToolCallEvent
from ostinato.cli._terminal import TerminalRenderer, format_call, one_line
from ostinato.testing import text_response


class Tty(io.StringIO):
    def __init__(self, encoding: str = "utf-8") -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding

    def isatty(self) -> bool:
        return True


def test_format_call_and_one_line():
    assert format_call("get_weather", '{"city": "Paris", "days": 2}') == (
        'get_weather(city="Paris", days=2)'
    )
    assert format_call("now", "") == "now()"
    assert format_call("raw", "not json") == "raw(not json)"
    assert format_call("x", '{"text": "' + "a" * 300 + '"}').endswith("…")
    assert len(format_call("x", '{"text": "' + "a" * 300 + '"}')) == 120
    assert one_line("a\n  b\tc") == "a b c"


def test_answer_on_out_and_the_rest_on_err():
    out, err = io.StringIO(), io.StringIO()
    renderer = TerminalRenderer(out, err)
    renderer.model_started(1)
    renderer.answer("Let me check.")
    renderer.tool_started("get_weather", '{"city": "Paris"}')
    renderer.tool_finished(ToolCallEvent("get_weather", '{"city": "Paris"}', 0.25, result="14"))
    renderer.tool_finished(ToolCallEvent("fly", "{}", None, error="unknown tool 'fly'"))
    renderer.answer("It is 14 °C.")
    renderer.finish(text_response("x", usage=(10, 5, 15)), 2, 1.25)
    assert out.getvalue() == "Let me check.\nIt is 14 °C.\n"
    assert err.getvalue().splitlines() == [
        '→ get_weather(city="Paris")',
        '← get_weather(city="Paris") 0.25 s: 14',
        "✗ fly(): unknown tool 'fly'",
        "usage: 10 prompt + 5 completion = 15 tokens; 2 model rounds; 1.2 s",
    ]


def test_plain_glyphs_where_the_terminal_cannot_show_arrows():
    err = Tty(encoding="ascii")
    renderer = TerminalRenderer(io.StringIO(), err, progress=False)
    renderer.tool_started("t", "{}")
    renderer.tool_finished(ToolCallEvent("t", "{}", 0.0, result="ok"))
    assert [line.strip("\x1b[2m").replace("\x1b[0m", "") for line in err.getvalue().splitlines()][
        :2
    ] == ["-> t()", "<- t() 0.00 s: ok"]


def test_json_mode_prints_no_answer():
    out, err = io.StringIO(), io.StringIO()
    renderer = TerminalRenderer(out, err, show_answer=False)
    renderer.answer("hidden")
    renderer.cancelled()
    assert out.getvalue() == ""
    assert err.getvalue() == "cancelled\n"


async def test_the_spinner_runs_on_a_terminal_until_output_arrives():
    out, err = io.StringIO(), Tty()
    renderer = TerminalRenderer(out, err)
    renderer.model_started(1)
    await asyncio.sleep(0.25)
    assert "thinking 0." in err.getvalue()
    renderer.answer("Hi")
    drawn = err.getvalue()
    assert drawn.endswith("\r\x1b[K")  # the spinner's line is cleared before the answer
    await asyncio.sleep(0.15)
    assert err.getvalue() == drawn  # and it stays stopped
    renderer.finish(None, 1, 0.3)
    assert out.getvalue() == "Hi\n"
    assert err.getvalue().endswith("\x1b[2musage: 1 model round; 0.3 s\x1b[0m\n")


async def test_no_spinner_when_stderr_is_not_a_terminal():
    err = io.StringIO()
    renderer = TerminalRenderer(io.StringIO(), err)
    renderer.model_started(1)
    await asyncio.sleep(0.15)
    renderer.stop()
    assert err.getvalue() == ""
