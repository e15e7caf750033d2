"""docs/plugins.md's hook reference matches the hook specifications, hook by hook."""

from __future__ import annotations

import re
from pathlib import Path

from ostinato.plugins import HOOK_NAMES, HookSpecs

DOC = Path(__file__).resolve().parents[3] / "docs" / "plugins.md"


def reference() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index("## Hook reference") :]


def spec_signature(hook: str) -> str:
    doc = getattr(HookSpecs, hook).__doc__ or ""
    found = re.search(r"``(register\(.*?\))``", doc, re.DOTALL)
    assert found, f"{hook}'s docstring lacks its ``register(...)`` signature"
    return " ".join(found.group(1).split())


def test_every_hook_has_a_section_in_order():
    headings = re.findall(r"^### (\w+)\(register\)$", reference(), re.MULTILINE)
    assert headings == list(HOOK_NAMES)


def test_each_section_shows_the_register_signature_of_the_spec():
    sections = re.split(r"^### ", reference(), flags=re.MULTILINE)[1:]
    for hook, section in zip(HOOK_NAMES, sections):
        signature = re.search(r"^`(register\(.*\))`$", section, re.MULTILINE)
        assert signature, f"no register(...) line in the section of {hook}"
        assert signature.group(1) == spec_signature(hook), hook
