"""``HttpxChatModel``'s declared defaults: the options class, the base URL and the name."""

from __future__ import annotations

import importlib
from typing import Any, Unpack

import pytest
from pydantic import SecretStr
from pydantic_settings import SettingsConfigDict

import ostinato
from ostinato.http import HttpxChatModel, ModelArguments, ProviderSettings, model_factory
from ostinato.prompt import ToolCallingChatOptions


class DeclaredModel(HttpxChatModel[ToolCallingChatOptions]):
    """Declares every default (its options class as its parameter): it needs no constructor."""

    provider = "declared"
    default_base_url = "https://api.declared.example"
    path = "/chat"


class ArgumentModel(DeclaredModel):
    """Has an argument of its own and passes the rest on."""

    def __init__(
        self, *, region: str = "eu", **arguments: Unpack[ModelArguments[ToolCallingChatOptions]]
    ) -> None:
        self.region = region
        super().__init__(headers={"x-region": region}, **arguments)


class UndeclaredModel(HttpxChatModel[Any]):
    """Declares nothing (not even an options class): its callers pass everything."""


class DeclaredSettings(ProviderSettings):
    """Settings holding a connection field, a field of the model and one of the base."""

    provider = "declared"
    model_config = SettingsConfigDict(env_prefix="OSTINATO_DECLARED_", env_file=None)

    base_url: str = "https://settings.declared.example"
    region: str = "us"
    temperature: float | None = 0.5


def test_the_declared_defaults_are_used_when_nothing_is_given() -> None:
    model = DeclaredModel()
    assert model.default_options == ToolCallingChatOptions()
    assert model.base_url == "https://api.declared.example"
    assert model._provider == "declared"
    assert model._url == "https://api.declared.example/chat"


def test_given_arguments_replace_the_declared_defaults() -> None:
    options = ToolCallingChatOptions(temperature=0.1)
    model = DeclaredModel(
        model="big", default_options=options, base_url="http://localhost:9", provider="other"
    )
    assert model.default_options == ToolCallingChatOptions(model="big", temperature=0.1)
    assert (model.base_url, model._provider) == ("http://localhost:9", "other")


def test_a_subclass_passes_the_base_arguments_on() -> None:
    model = ArgumentModel(region="ap", model="m", api_key=SecretStr("k"))
    assert model.region == "ap"
    assert model.default_options.model == "m"
    assert model._headers["x-region"] == "ap"
    assert model._headers["authorization"] == "Bearer k"


@pytest.mark.parametrize(
    ("given", "missing"),
    [
        ({"base_url": "https://x.example"}, "options_type"),
        ({"default_options": ToolCallingChatOptions()}, "default_base_url"),
    ],
)
def test_an_undeclared_default_must_be_given(given: dict[str, Any], missing: str) -> None:
    with pytest.raises(TypeError) as caught:
        UndeclaredModel(**given)
    message = str(caught.value)
    assert message.startswith("UndeclaredModel() needs ")
    assert f"the class declares no {missing}" in message
    assert f"set {missing} on UndeclaredModel" in message


def test_the_factory_passes_settings_to_the_base_arguments_too() -> None:
    create = model_factory(ArgumentModel, DeclaredSettings, ToolCallingChatOptions)
    model = create("small", DeclaredSettings())
    assert model.region == "us"  # the subclass's own argument
    assert model.base_url == "https://settings.declared.example"  # the base's argument
    assert model.default_options == ToolCallingChatOptions(model="small", temperature=0.5)


def test_the_options_class_and_the_settings_prefix_are_derived() -> None:
    assert DeclaredModel.options_type is ToolCallingChatOptions
    assert ArgumentModel.options_type is ToolCallingChatOptions  # inherited
    assert UndeclaredModel.options_type is None
    assert DeclaredModel.env_prefix == "OSTINATO_DECLARED_"
    assert UndeclaredModel.env_prefix == "OSTINATO_"


@pytest.mark.parametrize("adapter", ["openai", "anthropic", "ollama"])
def test_the_user_agent_names_the_adapters_distribution_and_version(adapter: str) -> None:
    package = importlib.import_module(f"ostinato_{adapter}")
    model = getattr(package, f"{ {'openai': 'OpenAI'}.get(adapter, adapter.title()) }ChatModel")
    assert model.user_agent == f"ostinato-{adapter}/{package.__version__}"
    assert model.env_prefix == f"OSTINATO_{adapter.upper()}_"
    # A package without __version__ keeps the base's: ostinato's own.
    assert DeclaredModel.user_agent == f"ostinato/{ostinato.__version__}"
