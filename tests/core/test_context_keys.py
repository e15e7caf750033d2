"""ostinato.context_keys: every advisor-context key of the core in one module; the old
import paths name the same objects."""

from __future__ import annotations

from ostinato import advisors, client, context_keys, memory


def test_old_import_paths_are_the_same_objects():
    assert memory.CONVERSATION_ID is context_keys.CONVERSATION_ID
    assert (
        client.TOOL_CALLING_ADVISOR_AUTO_REGISTER is context_keys.TOOL_CALLING_ADVISOR_AUTO_REGISTER
    )
    assert advisors.OUTPUT_FORMAT is context_keys.OUTPUT_FORMAT
    assert advisors.SENT_OPTIONS is context_keys.SENT_OPTIONS
    assert advisors.TOOL_LOOP_ROUND is context_keys.TOOL_LOOP_ROUND


def test_the_values_are_unchanged():
    assert context_keys.CONVERSATION_ID == "chat_memory_conversation_id"
    assert (
        context_keys.TOOL_CALLING_ADVISOR_AUTO_REGISTER
        == "ostinato.chat_client.tool_calling.advisor.auto_register"
    )
    assert context_keys.OUTPUT_FORMAT == "ostinato.chat_client.output_format"
    assert context_keys.SENT_OPTIONS == "ostinato.model.sent_options"
    assert context_keys.TOOL_LOOP_ROUND == "ostinato.tool_loop.round"


def test_every_key_is_distinct():
    values = [getattr(context_keys, name) for name in context_keys.__all__]
    assert len(set(values)) == len(values)


def test_an_output_schema_in_the_context_reaches_the_model_on_call_and_stream():
    import pytest

    from ostinato import ChatClient
    from ostinato.client import AdvisorParams
    from ostinato.errors import StructuredOutputNotSupportedError
    from ostinato.testing import ScriptedChatModel

    schema = AdvisorParams.param(context_keys.OUTPUT_SCHEMA, '{"type": "object"}')
    model = ScriptedChatModel(["{}", "{}"])
    client = ChatClient.create(model)
    assert client.prompt("q").advisors(schema).call().content() == "{}"
    assert "".join(client.prompt("q").advisors(schema).stream().content()) == "{}"
    assert [p.options.output_schema for p in model.prompts] == ['{"type": "object"}'] * 2

    unable = ScriptedChatModel(["never"], native_structured_output=False)
    spec = ChatClient.create(unable).prompt("q").advisors(schema)
    with pytest.raises(StructuredOutputNotSupportedError):
        list(spec.stream().content())
    assert unable.call_count == 0
