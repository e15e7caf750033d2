"""Tool sources (``--tools``, a durable worker's tool names): files, modules, attributes,
classes."""

from __future__ import annotations

import pytest

from ostinato.errors import ConfigurationError
from ostinato.tools._loading import load_tools, resolve_tool_source
from tests.fakes.distributions import clean_environment

__all__ = ["clean_environment"]  # the fixture, a working directory on sys.path

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
        "--tools 'toolbox:Missing': toolbox has no attribute 'Missing' (tools: add, Clock, "
        "FAVOURITES)",
        "fix: name one of its tools, e.g. --tools toolbox:add",
    ]
    tools_file.with_name("broken.py").write_text("raise RuntimeError('nope')\n", encoding="utf-8")
    with pytest.raises(
        ConfigurationError,
        match=r"importing .*broken\.py failed at .*broken\.py:1: RuntimeError: nope",
    ):
        resolve_tool_source("broken.py")
    with pytest.raises(ConfigurationError, match="nothing to load"):
        resolve_tool_source(":x")


def test_a_syntax_error_names_the_file_and_line(tools_file):
    broken = tools_file.with_name("typo.py")
    broken.write_text("from ostinato import tool\n\n\ndef add(a, b:\n    return a\n")
    with pytest.raises(ConfigurationError) as raised:
        resolve_tool_source(str(broken))
    problem, source_line, fix = str(raised.value).splitlines()
    assert problem.startswith(f"--tools {str(broken)!r}: SyntaxError in {broken}:4, column")
    assert source_line == "  def add(a, b:"
    assert fix == f"fix: correct the Python at {broken}:4"
    with pytest.raises(ConfigurationError, match=r"SyntaxError in .*typo\.py:4"):
        resolve_tool_source("typo")  # as a module too


def test_an_exception_while_importing_names_the_line_that_raised(tools_file):
    raising = tools_file.with_name("raising.py")
    raising.write_text("def setup():\n    return {}['key']\n\n\nsetup()\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as raised:
        resolve_tool_source("raising.py")
    assert str(raised.value).splitlines()[-1] == (
        f"fix: correct {raising}:2 (or run with --debug for the whole traceback)"
    )


def test_an_unknown_attribute_lists_what_the_module_has(tools_file):
    plain = tools_file.with_name("plain.py")
    plain.write_text("import os\n\n\ndef helper():\n    pass\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as raised:
        resolve_tool_source(f"{plain}:nope")
    assert str(raised.value).splitlines() == [
        f"--tools '{plain}:nope': {plain} has no attribute 'nope' (other callables: helper)",
        "fix: name a module or file that defines @tool functions, or an attribute of one",
    ]
