"""A failed model round names the replacement tool advisor among the suspects.

An installed replacement tool advisor changes which tools and instructions the model sees;
when the model's round then fails (the server cannot parse what the model wrote, or
rejects the request), the error's fix must not blame only the model. With core's
``default`` advisor, and for failures that are not about the request (credentials, the
connection), the error is left as it was.
"""

from __future__ import annotations

import pytest

import ostinato
from ostinato.config import build_container
from ostinato.errors import AuthenticationError, BadRequestError, ServerError
from ostinato.testing import ScriptedChatModel
from tests.core.cli.cli_process import run_main
from tests.fakes import scripted_provider

ADVISOR = "OSTINATO_CHAT_CLIENT__TOOL_CALLING__ADVISOR"

REPLACEMENT_LOOP = """
    from ostinato.plugins import hookimpl

    @hookimpl
    def register_tool_advisors(register):
        def factory(context, tool_calling_manager):
            from ostinato.advisors import ToolCallingAdvisor

            class SearchLoop(ToolCallingAdvisor):
                pass

            return SearchLoop(tool_calling_manager=tool_calling_manager)

        register("acme-search", factory)
"""

SMALL_MODEL = (
    "llama-server answered HTTP 500: output does not match the expected format\n"
    "fix: point OSTINATO_MODEL at a stronger model"
)


def unparsable() -> ServerError:
    return ServerError(SMALL_MODEL, provider="llamacpp", status=500)


def failing(error: Exception) -> ScriptedChatModel:
    return ScriptedChatModel(responder=lambda prompt: error)


def ask(client: ostinato.ChatClient, mode: str) -> None:
    spec = client.prompt("Weather in Paris?")
    if mode == "call":
        spec.call().content()
    else:
        list(spec.stream().content())


@pytest.fixture
def replacement(fake_distributions):
    fake_distributions.plugin("acme-search", REPLACEMENT_LOOP, version="3.1")
    return fake_distributions


@pytest.mark.parametrize("mode", ["call", "stream"])
def test_the_fix_names_the_replacement_beside_the_model(replacement, mode):
    client = ostinato.chat_client(chat_model=failing(unparsable()))
    with pytest.raises(ServerError) as caught:
        ask(client, mode)
    lines = str(caught.value).splitlines()
    assert lines == [
        "llama-server answered HTTP 500: output does not match the expected format",
        "  the tool advisor is 'acme-search' (SearchLoop, distribution ostinato-acme-search "
        "3.1; the only installed replacement of 'default'): it decides which tools and "
        "instructions the model sees",
        "fix: point OSTINATO_MODEL at a stronger model; or rule out the tool advisor: "
        f"{ADVISOR}=default",
    ]
    assert (caught.value.provider, caught.value.status) == ("llamacpp", 500)


@pytest.mark.parametrize("mode", ["call", "stream"])
def test_an_error_without_a_fix_gets_one(replacement, mode):
    error = BadRequestError("the request was rejected: invalid tool schema", status=400)
    client = ostinato.chat_client(chat_model=failing(error))
    with pytest.raises(BadRequestError) as caught:
        ask(client, mode)
    assert str(caught.value).splitlines()[-1] == (
        f"fix: rule out the tool advisor: run with {ADVISOR}=default; if the error stays, "
        "look at the model and its server"
    )


def test_a_credentials_error_is_left_alone(replacement):
    error = AuthenticationError("Incorrect API key provided", status=401)
    client = ostinato.chat_client(chat_model=failing(error))
    with pytest.raises(AuthenticationError) as caught:
        ask(client, "call")
    assert str(caught.value) == "Incorrect API key provided"


def test_with_the_default_advisor_the_model_error_is_left_alone(replacement, monkeypatch):
    monkeypatch.setenv(ADVISOR, "default")
    client = ostinato.chat_client(chat_model=failing(unparsable()))
    with pytest.raises(ServerError) as caught:
        ask(client, "call")
    assert str(caught.value) == SMALL_MODEL


def test_a_tool_advisor_given_in_code_is_not_blamed_on_the_installed_one(replacement):
    from ostinato.advisors import ToolCallingAdvisor

    container = build_container(chat_model=failing(unparsable()), tool_advisor=ToolCallingAdvisor())
    with pytest.raises(ServerError) as caught:
        ask(container.chat_client(), "call")
    assert str(caught.value) == SMALL_MODEL


def test_ostinato_chat_shows_the_fix_that_names_it(replacement, capsys, monkeypatch):
    scripted_provider.install(replacement)
    monkeypatch.setitem(scripted_provider.SCENARIOS, "unparsable", lambda: failing(unparsable()))
    code, _, err = run_main(capsys, "chat", "--model", "scripted:unparsable", "Weather?")
    assert code != 0
    assert "the tool advisor is 'acme-search' (SearchLoop" in err
    assert f"; or rule out the tool advisor: {ADVISOR}=default" in err
