"""``--tools`` sources: files, modules, attributes, classes."""

from __future__ import annotations

import pytest

from ostinato.cli._tool_loading import load_tools, resolve_tool_source
from ostinato.errors import ConfigurationError

TOOLS = """
from ostinato import tool


@tool(description="Add")
def add(a: int, b: int) -> int:
    return a + b


class Clock:
    @tool(description="The time")
    def now(self) -> str:
        return "noon"


FAVOURITES = [add]
"""


@pytest.fixture
def tools_file(clean_environment):
    path = clean_environment / "toolbox.py"
    path.write_text(TOOLS, encoding="utf-8")
    return path


def names(sources):
    return [cb.tool_definition.name for cb in load_tools(sources)]


def test_a_file_gives_its_module_level_tools(tools_file):
    assert names([str(tools_file)]) == ["add"]
    assert names(["toolbox.py"]) == ["add"]


def test_attributes_of_files_and_modules(tools_file):
    assert names([f"{tools_file}:Clock"]) == ["now"]  # a class is instantiated
    assert names(["toolbox:FAVOURITES", "toolbox:Clock"]) == ["add", "now"]
    assert names(["toolbox"]) == ["add"]


def test_two_tools_with_one_name_are_refused(tools_file):
    with pytest.raises(ConfigurationError, match="Multiple tools with the same name"):
        load_tools(["toolbox.py", "toolbox:add"])


def test_errors_name_the_source_and_the_fix(tools_file):
    with pytest.raises(ConfigurationError) as raised:
        resolve_tool_source("toolbox:Missing")
    assert str(raised.value).splitlines() == [
        "--tools 'toolbox:Missing': toolbox has no attribute 'Missing'",
        "fix: write --tools module:attribute (e.g. mypkg.tools:WeatherTools), a module, or "
        "the path of a .py file (e.g. examples/weather.py)",
    ]
    tools_file.with_name("broken.py").write_text("raise RuntimeError('nope')\n", encoding="utf-8")
    with pytest.raises(
        ConfigurationError, match=r"importing .*broken\.py failed: RuntimeError: nope"
    ):
        resolve_tool_source("broken.py")
    with pytest.raises(ConfigurationError, match="nothing to load"):
        resolve_tool_source(":x")
