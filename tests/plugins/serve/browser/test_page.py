"""The web page, used as a person would: in Chromium, against a real served client.

The client (``scenario.py``) runs a scripted model and real tools (``send_money`` needs
approval); every test types into the page, clicks its buttons and reads what it shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.plugins.serve.browser.scenario import RELEASE, build_app

TOKEN = "s3cret-token-for-the-page"
#: What every loop event of round 1 carries, as the stream sends it.
_EVENT = {"schema_version": 1, "round": 1}


@pytest.fixture
def page_on(serve: Callable[[Any], str], open_page: Callable[..., Any]) -> Callable[..., Any]:
    """``page_on(token=None, fragment="", **viewport)``: a page open on a fresh app."""

    def open_(token: str | None = None, fragment: str = "", **viewport: int) -> Any:
        return open_page(serve(build_app(token)) + fragment, **viewport)

    return open_


def _ask(page: Page, text: str) -> None:
    question = page.get_by_test_id("question")
    question.fill(text)
    question.press("Enter")


def _idle(page: Page) -> None:
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "idle")


def _an_error(page: Page, *, saying: str | None = None) -> None:
    """The status shows an error (``saying`` this) and the page takes a question again."""
    status = page.get_by_test_id("status")
    expect(status).to_have_attribute("data-state", "error")
    if saying is not None:
        expect(status).to_contain_text(saying)
    expect(page.get_by_test_id("send")).to_be_enabled()


def _stream_then_drop(page: Page, *events: tuple[str, dict[str, Any]]) -> None:
    """The next turns' streams send ``events`` (server-sent events), then close early."""
    body = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
    page.route(
        "**/api/turns",
        lambda route: route.fulfill(
            status=200, headers={"Content-Type": "text/event-stream"}, body=body
        ),
    )


def test_a_question_shows_its_rounds_tool_calls_results_and_answer(page_on: Any) -> None:
    page = page_on().page
    expect(page.get_by_test_id("status")).to_have_text("Idle")
    expect(page.get_by_test_id("question")).to_be_focused()

    _ask(page, "What is the weather in Lisbon and Paris?")

    expect(page.get_by_test_id("message-user")).to_have_text(
        "What is the weather in Lisbon and Paris?"
    )
    assistant = page.get_by_test_id("message-assistant")
    expect(assistant).to_contain_text("Results: 21; 14")
    _idle(page)
    expect(page.get_by_test_id("round")).to_have_count(2)
    calls = page.get_by_test_id("tool-call")
    expect(calls).to_have_count(2)
    for n, (city, degrees) in enumerate((("Lisbon", "21"), ("Paris", "14"))):
        call = calls.nth(n)
        expect(call).to_have_attribute("data-state", "done")
        expect(call).to_contain_text("temperature")
        expect(call.locator(".tool-arguments")).to_have_text(f'{{ "city": "{city}" }}')
        expect(call.locator(".tool-result")).to_have_text(degrees)
        expect(call.locator(".tool-duration")).to_have_text(re.compile(r"^(<1|\d+) ms$"))
    expect(page.get_by_test_id("round").first).to_contain_text("Round 1")
    expect(page.get_by_test_id("question")).to_have_value("")


def test_calls_of_different_rounds_with_the_same_id_keep_their_own_cards(page_on: Any) -> None:
    page = page_on().page
    _ask(page, "The weather one by one, please")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("Results: 14")
    expect(page.get_by_test_id("round")).to_have_count(3)
    calls = page.get_by_test_id("tool-call")
    expect(calls).to_have_count(2)
    expect(calls.nth(0).locator(".tool-arguments")).to_have_text('{ "city": "Lisbon" }')
    expect(calls.nth(0).locator(".tool-result")).to_have_text("21")
    expect(calls.nth(1).locator(".tool-arguments")).to_have_text('{ "city": "Paris" }')
    expect(calls.nth(1).locator(".tool-result")).to_have_text("14")


def test_a_pending_call_waits_for_approval_then_runs(page_on: Any) -> None:
    page = page_on().page
    _ask(page, "Please pay Ann 50 EUR")

    call = page.get_by_test_id("tool-call")
    expect(call).to_have_attribute("data-state", "pending")
    expect(page.get_by_test_id("status")).to_have_text("Waiting for approval")
    expect(call.locator(".tool-arguments")).to_have_text('{ "amount": 50, "to": "Ann" }')
    expect(page.get_by_test_id("send")).to_be_disabled()
    expect(call.get_by_test_id("approve")).to_be_focused()

    call.get_by_test_id("approve").click()

    expect(page.get_by_test_id("message-assistant")).to_contain_text("Results: sent 50 EUR to Ann")
    expect(call).to_have_attribute("data-state", "done")
    expect(call.locator(".tool-result")).to_have_text("sent 50 EUR to Ann")
    expect(call.locator(".tool-duration")).to_have_text(re.compile(r"^(<1|\d+) ms$"))
    expect(call.get_by_test_id("approve")).to_have_count(0)
    _idle(page)
    expect(page.get_by_test_id("send")).to_be_enabled()
    # the turn's tokens are both rounds', before and after the approval (317 + 381)
    expect(page.locator(".turn-meta")).to_contain_text("answered · 2 rounds · 698 tokens")


def test_a_denied_call_does_not_run_and_the_model_reads_why(page_on: Any) -> None:
    page = page_on().page
    _ask(page, "Please pay Ann 50 EUR")
    call = page.get_by_test_id("tool-call")
    expect(call).to_have_attribute("data-state", "pending")

    call.get_by_label("Reason for denying send_money").fill("over budget")
    call.get_by_test_id("deny").click()

    expect(page.get_by_test_id("message-assistant")).to_contain_text(
        "Results: Tool call 'send_money' was not run: denied (over budget)."
    )
    expect(call).to_have_attribute("data-state", "denied")
    # Once the resumed turn reports the call, the card shows what the model read.
    expect(call.locator(".tool-result")).to_have_text(
        "Tool call 'send_money' was not run: denied (over budget)."
    )
    _idle(page)


def test_a_pending_call_runs_with_arguments_edited_on_the_page(page_on: Any) -> None:
    page = page_on().page
    _ask(page, "Please pay Ann 50 EUR")
    call = page.get_by_test_id("tool-call")
    call.get_by_test_id("edit").click()
    editor = call.get_by_label("Arguments for send_money, as JSON")
    expect(editor).to_be_focused()
    expect(editor).to_have_value('{\n  "amount": 50,\n  "to": "Ann"\n}')

    editor.fill("[1, 2]")
    call.get_by_test_id("run-edited").click()
    expect(call.get_by_role("alert")).to_have_text(re.compile("must be a JSON object"))
    editor.fill('{"amount": 20, "to": "Ann"')
    call.get_by_test_id("run-edited").click()
    expect(call.get_by_role("alert")).to_have_text(re.compile("^Not JSON"))
    expect(call).to_have_attribute("data-state", "pending")

    editor.fill('{"amount": 20, "to": "Ann"}')
    call.get_by_test_id("run-edited").click()

    expect(page.get_by_test_id("message-assistant")).to_contain_text("Results: sent 20 EUR to Ann")
    expect(call).to_have_attribute("data-state", "done")
    expect(call.locator(".tool-arguments")).to_have_text('{ "amount": 20, "to": "Ann" }')
    expect(call.locator(".tool-result")).to_have_text("sent 20 EUR to Ann")
    _idle(page)


def test_a_round_with_two_pending_calls_resumes_once_both_are_decided(page_on: Any) -> None:
    page = page_on().page
    _ask(page, "Please pay both of them")
    calls = page.get_by_test_id("tool-call")
    expect(calls).to_have_count(2)
    ann, bob = calls.nth(0), calls.nth(1)
    expect(bob).to_have_attribute("data-state", "pending")

    ann.get_by_test_id("approve").click()
    expect(ann.get_by_test_id("approve")).to_have_count(0)
    expect(bob.get_by_test_id("approve")).to_be_focused()
    expect(page.get_by_test_id("status")).to_have_text("Waiting for approval")
    bob.get_by_test_id("deny").click()

    expect(page.get_by_test_id("message-assistant")).to_contain_text(
        "Results: sent 50 EUR to Ann; Tool call 'send_money' was not run: denied"
    )
    expect(ann).to_have_attribute("data-state", "done")
    expect(bob).to_have_attribute("data-state", "denied")
    _idle(page)


def test_a_conversation_continues_until_a_new_one_starts(page_on: Any) -> None:
    page = page_on().page
    _ask(page, "count, please")
    expect(page.get_by_test_id("message-assistant")).to_have_text(re.compile("You said 1 thing"))
    _idle(page)
    _ask(page, "count again")
    expect(page.get_by_test_id("message-assistant").nth(1)).to_contain_text("You said 2 thing")
    _idle(page)

    page.get_by_test_id("new-conversation").click()

    expect(page.get_by_test_id("message-user")).to_have_count(0)
    expect(page.get_by_test_id("message-assistant")).to_have_count(0)
    expect(page.get_by_test_id("question")).to_be_focused()
    _ask(page, "count once more")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("You said 1 thing")


def test_enter_sends_and_shift_enter_adds_a_line(page_on: Any) -> None:
    page = page_on().page
    question = page.get_by_test_id("question")
    question.press_sequentially("first line")
    question.press("Shift+Enter")
    question.press_sequentially("second line")
    expect(question).to_have_value("first line\nsecond line")
    expect(page.get_by_test_id("message-user")).to_have_count(0)

    question.press("Enter")

    expect(page.get_by_test_id("message-user")).to_have_text("first line\nsecond line")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("Hello.")


def test_the_token_is_asked_for_when_the_server_needs_one(page_on: Any) -> None:
    page = page_on(token=TOKEN).page
    token = page.get_by_test_id("token")
    expect(token).to_be_visible()
    expect(token).to_be_focused()
    expect(page.get_by_label("Access token")).to_be_visible()

    token.fill("wrong")
    token.press("Enter")
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "error")
    expect(page.get_by_test_id("status")).to_contain_text("token")
    expect(token).to_be_visible()

    token.fill(TOKEN)
    token.press("Enter")
    expect(token).to_be_hidden()
    _idle(page)
    _ask(page, "hi")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("Hello.")


def test_the_token_can_come_in_the_url_fragment_and_leaves_the_address_bar(
    page_on: Any,
) -> None:
    page = page_on(token=TOKEN, fragment=f"#token={TOKEN}").page
    _idle(page)
    expect(page.get_by_test_id("token")).to_be_hidden()
    assert TOKEN not in page.url
    _ask(page, "hi")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("Hello.")


def test_without_auth_there_is_no_token_field(page_on: Any) -> None:
    page = page_on().page
    _idle(page)
    expect(page.get_by_test_id("token")).to_be_hidden()


def test_a_dropped_stream_is_an_error_not_a_spinner(page_on: Any) -> None:
    page = page_on().page
    _idle(page)
    # the connection dies after the first message of the turn
    _stream_then_drop(
        page,
        ("turn", {"conversation_id": "c1"}),
        (
            "round_started",
            {**_EVENT, "kind": "round_started", "messages": [], "tool_names": [], "options": {}},
        ),
    )
    _ask(page, "hi")

    _an_error(page, saying="the connection closed before the turn ended")
    expect(page.get_by_test_id("round")).not_to_contain_text("waiting for the model")


def test_a_turn_failing_on_the_server_is_an_error(page_on: Any) -> None:
    page = page_on().page
    _ask(page, "explode, please")
    _an_error(page, saying="the turn failed on the server")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("Error:")


def test_a_stream_dropped_while_a_call_waits_leaves_no_decision_offered(page_on: Any) -> None:
    page = page_on().page
    _idle(page)
    arguments = json.dumps({"amount": 5, "to": "Ann"})
    call = {"id": "pay", "type": "function", "name": "send_money", "arguments": arguments}
    _stream_then_drop(
        page,
        ("turn", {"conversation_id": "c1"}),
        ("tool_call_requested", {**_EVENT, "kind": "tool_call_requested", "call": call}),
        ("approval_required", {**_EVENT, "kind": "approval_required", "calls": [call]}),
        ("pending", {"pending_id": "p1", "calls": [call]}),
    )
    _ask(page, "pay Ann")

    _an_error(page)
    tool_call = page.get_by_test_id("tool-call")
    expect(tool_call).to_have_attribute("data-state", "failed")
    expect(tool_call.get_by_test_id("approve")).to_have_count(0)


def test_a_failed_call_shows_the_class_raised_and_a_cancelled_call_says_so(
    page_on: Any,
) -> None:
    page = page_on().page
    _idle(page)
    broken = {"id": "b", "type": "function", "name": "broken", "arguments": "{}"}
    slow = {"id": "s", "type": "function", "name": "slow", "arguments": "{}"}
    finished = {**_EVENT, "kind": "tool_finished", "duration": 0.1, "return_direct": False}
    _stream_then_drop(
        page,
        ("turn", {"conversation_id": "c1"}),
        ("tool_started", {**_EVENT, "kind": "tool_started", "call": broken}),
        ("tool_started", {**_EVENT, "kind": "tool_started", "call": slow}),
        (
            "tool_finished",
            {
                **finished,
                "call": broken,
                "result": "Error: tool 'broken' failed: ValueError: no",
                "error": "ValueError",
                "failure": "raised",
            },
        ),
        (
            "tool_finished",
            {
                **finished,
                "call": slow,
                "result": "Cancelled: the turn was cancelled",
                "error": "CancelledError",
                "failure": "cancelled",
            },
        ),
    )
    _ask(page, "go")

    calls = page.get_by_test_id("tool-call")
    expect(calls).to_have_count(2)
    expect(calls.nth(0)).to_have_attribute("data-state", "failed")
    expect(calls.nth(0)).to_contain_text("failed: ValueError")
    expect(calls.nth(1)).to_have_attribute("data-state", "failed")
    expect(calls.nth(1).locator(".tool-state")).to_have_text("cancelled")


def test_an_unreachable_server_is_an_error(page_on: Any) -> None:
    page = page_on().page
    _idle(page)
    page.route("**/api/turns", lambda route: route.abort("connectionreset"))
    _ask(page, "hi")
    _an_error(page)


def test_a_message_sent_while_the_page_connects_keeps_the_state_it_ended_in(
    page_on: Any,
) -> None:
    """The page says it is connecting until the server answered; a message sent meanwhile
    that failed stays an error when the connection completes (it was overwritten by
    "Idle", and a check for "Idle" passed before the page had connected)."""
    page = page_on().page
    _idle(page)
    held: list[Any] = []
    page.route("**/api/info", lambda route: held.append(route))  # the first request, held
    page.route("**/api/turns", lambda route: route.abort("connectionreset"))
    page.reload()
    status = page.get_by_test_id("status")
    try:
        expect(status).to_have_attribute("data-state", "connecting")
        expect(status).to_have_text("Connecting…")
        _ask(page, "hi")
        _an_error(page)
    finally:
        held.pop().continue_()  # a held request would hold the page's closing too
    expect(page).to_have_title(re.compile("^ostinato · "))  # connected (idle came with it)
    assert status.get_attribute("data-state") == "error"


def test_model_text_is_shown_as_text_never_as_markup(page_on: Any) -> None:
    page = page_on().page
    _ask(page, "markup please")
    assistant = page.get_by_test_id("message-assistant")
    expect(assistant).to_contain_text('<img src="x"')
    expect(assistant.locator("img, b")).to_have_count(0)
    assert page.title() != "owned"


def test_the_page_fits_a_phone(page_on: Any) -> None:
    page = page_on(width=390, height=844).page
    _ask(page, "What is the weather in Lisbon and Paris?")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("Results: 21; 14")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    expect(page.get_by_test_id("send")).to_be_in_viewport()
    expect(page.get_by_test_id("new-conversation")).to_be_in_viewport()


def test_stop_ends_a_running_turn_without_leaving_it_running(page_on: Any) -> None:
    RELEASE.clear()
    try:
        page = page_on().page
        _ask(page, "something slow")
        call = page.get_by_test_id("tool-call")
        expect(call).to_have_attribute("data-state", "running")
        expect(page.get_by_test_id("status")).to_have_text("Running…")

        page.get_by_role("button", name="Stop").click()

        _idle(page)
        expect(call).to_have_attribute("data-state", "failed")
        expect(call).to_contain_text("interrupted")
        expect(page.get_by_test_id("message-assistant")).to_contain_text("Stopped.")
        expect(page.get_by_role("button", name="Stop")).to_be_hidden()
        _ask(page, "hi")
        expect(page.get_by_test_id("message-assistant").nth(1)).to_contain_text("Hello.")
    finally:
        RELEASE.set()


def test_a_stored_conversation_opens_and_continues(
    serve: Callable[[Any], str], open_page: Callable[..., Any]
) -> None:
    url = serve(build_app(memory=True))
    first = open_page(url).page
    _ask(first, "count, please")
    expect(first.get_by_test_id("message-assistant")).to_contain_text("You said 1 thing")
    _idle(first)
    listed = first.get_by_label("Continue a conversation")
    expect(listed).to_be_visible()
    expect(listed.locator("option")).to_have_count(2)

    page = open_page(url).page
    chosen = page.get_by_label("Continue a conversation")
    expect(chosen.locator("option")).to_have_count(2)
    chosen.select_option(index=1)

    expect(page.get_by_test_id("message-user")).to_have_text("count, please")
    expect(page.get_by_test_id("message-assistant")).to_have_text(
        "You said 1 thing(s) in this conversation."
    )
    _ask(page, "count again")
    expect(page.get_by_test_id("message-assistant").nth(1)).to_contain_text("You said 2 thing")
    expect(chosen).to_contain_text("(4 messages)")


def test_the_page_works_mounted_under_a_prefix(
    serve: Callable[[Any], str], open_page: Callable[..., Any]
) -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    url = serve(Starlette(routes=[Mount("/agent", app=build_app())]))
    page = open_page(url + "agent/").page
    _ask(page, "What is the weather in Lisbon and Paris?")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("Results: 21; 14")
    expect(page.get_by_test_id("model")).to_have_text("scripted:demo")
