"""PromptTemplate: ``{name}`` placeholders, ``{{``/``}}`` escapes, refused fields, and
errors naming every missing and unused parameter."""

from __future__ import annotations

import dataclasses

import pytest

from ostinato import PromptTemplate
from ostinato.errors import OstinatoError, PromptTemplateError


def test_render_fills_placeholders_with_str_of_each_value():
    template = PromptTemplate("Tell me about {topic} in {n} words, {topic}!")
    assert template.placeholders == frozenset({"topic", "n"})
    assert template.render(topic="owls", n=20) == "Tell me about owls in 20 words, owls!"
    assert template.render({"topic": "owls", "n": 1}, n=2) == "Tell me about owls in 2 words, owls!"


def test_double_braces_are_literal_braces():
    template = PromptTemplate('Answer as {{"city": "{city}"}}')
    assert template.placeholders == frozenset({"city"})
    assert template.render(city="Oslo") == 'Answer as {"city": "Oslo"}'


def test_a_template_without_placeholders_renders_its_text():
    assert PromptTemplate("plain").render() == "plain"
    assert PromptTemplate("").placeholders == frozenset()


def test_missing_and_unused_parameters_are_named():
    template = PromptTemplate("Hi {name}, from {place}")
    with pytest.raises(PromptTemplateError) as caught:
        template.render(name="Ada", plcae="Oslo")
    message = str(caught.value)
    assert "missing parameter(s): place" in message
    assert "unused parameter(s): plcae" in message
    assert "'Hi {name}, from {place}'" in message
    assert isinstance(caught.value, OstinatoError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    "text",
    ["{x.__class__}", "{x[0]}", "{x!r}", "{x:>10}", "{}", "{0}", "{x-y}", "{ x }"],
)
def test_only_plain_names_are_placeholders(text):
    with pytest.raises(PromptTemplateError, match="expected a plain name such as"):
        PromptTemplate(text)


@pytest.mark.parametrize("text", ["unclosed {name", "stray } brace", "{"])
def test_unbalanced_braces_are_refused_when_the_template_is_made(text):
    with pytest.raises(PromptTemplateError, match="write \\{\\{ and \\}\\} for literal braces"):
        PromptTemplate(text)


def test_values_are_never_formatted_through_their_attributes():
    class Sneaky:
        secret = "s3cr3t"

        def __str__(self) -> str:
            return "visible"

    assert PromptTemplate("{x}").render(x=Sneaky()) == "visible"


def test_a_template_is_a_frozen_value():
    template = PromptTemplate("Hi {name}")
    assert template == PromptTemplate("Hi {name}")
    assert hash(template) == hash(PromptTemplate("Hi {name}"))
    assert repr(template) == "PromptTemplate(text='Hi {name}')"
    with pytest.raises(dataclasses.FrozenInstanceError):
        template.text = "other"  # type: ignore[misc]


def test_text_must_be_a_string():
    with pytest.raises(TypeError, match="a prompt template is a str, got int"):
        PromptTemplate(3)  # type: ignore[arg-type]
