"""The page reloaded, or left, in Chromium: the tab keeps its conversation and shows it
again (from memory, or from what the server keeps itself); a turn waiting for approval
offers its decision again; leaving while a turn runs asks first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from ostinato_serve._state import ConversationHistories
from tests.plugins.serve.browser.scenario import RELEASE, STARTED, build_app


def _ask(page: Page, text: str) -> None:
    question = page.get_by_test_id("question")
    question.fill(text)
    question.press("Enter")


def _idle(page: Page) -> None:
    expect(page.get_by_test_id("status")).to_have_attribute("data-state", "idle")


@pytest.mark.parametrize("memory", [False, True], ids=["server-kept", "memory"])
def test_a_reload_shows_the_conversation_again_and_it_goes_on(
    serve: Callable[[Any], str], open_page: Callable[..., Any], memory: bool
) -> None:
    page = open_page(serve(build_app(memory=memory))).page
    _ask(page, "count, please")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("You said 1 thing")
    _idle(page)
    _ask(page, "What is the weather in Lisbon and Paris?")
    expect(page.get_by_test_id("message-assistant").nth(1)).to_contain_text("Results: 21; 14")
    _idle(page)

    page.reload()

    users = page.get_by_test_id("message-user")
    expect(users).to_have_text(["count, please", "What is the weather in Lisbon and Paris?"])
    answers = page.get_by_test_id("message-assistant")
    expect(answers).to_have_count(2)
    expect(answers.nth(0)).to_have_text("You said 1 thing(s) in this conversation.")
    expect(answers.nth(1)).to_contain_text("Results: 21; 14")
    _idle(page)
    _ask(page, "count again")  # the same conversation goes on
    expect(page.get_by_test_id("message-assistant").nth(2)).to_contain_text("You said 3 thing")


def test_a_new_conversation_stays_new_after_a_reload(
    serve: Callable[[Any], str], open_page: Callable[..., Any]
) -> None:
    page = open_page(serve(build_app())).page
    _ask(page, "count, please")
    _idle(page)
    expect(page.get_by_test_id("message-assistant")).to_contain_text("You said 1 thing")
    page.get_by_test_id("new-conversation").click()

    page.reload()

    _idle(page)
    expect(page.get_by_test_id("message-user")).to_have_count(0)
    _ask(page, "count, please")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("You said 1 thing")


def test_a_conversation_the_server_no_longer_has_is_said_not_hidden(
    serve: Callable[[Any], str], open_page: Callable[..., Any]
) -> None:
    app = build_app()
    page = open_page(serve(app)).page
    _ask(page, "count, please")
    _idle(page)
    app.state.ostinato.histories = ConversationHistories()  # as if the server restarted

    page.reload()

    status = page.get_by_test_id("status")
    expect(status).to_contain_text("no longer")
    expect(page.get_by_test_id("send")).to_be_enabled()
    _ask(page, "count, please")
    expect(page.get_by_test_id("message-assistant")).to_contain_text("You said 1 thing")


@pytest.mark.parametrize("memory", [False, True], ids=["server-kept", "memory"])
def test_a_reload_while_a_call_waits_for_approval_offers_the_decision_again(
    serve: Callable[[Any], str], open_page: Callable[..., Any], memory: bool
) -> None:
    page = open_page(serve(build_app(memory=memory))).page
    _ask(page, "Please pay Ann 50 EUR")
    expect(page.get_by_test_id("tool-call")).to_have_attribute("data-state", "pending")

    page.reload()

    call = page.get_by_test_id("tool-call")
    expect(call).to_have_attribute("data-state", "pending")
    expect(page.get_by_test_id("status")).to_have_text("Waiting for approval")
    expect(page.get_by_test_id("message-user")).to_have_text("Please pay Ann 50 EUR")
    expect(call.locator(".tool-arguments")).to_have_text('{ "amount": 50, "to": "Ann" }')
    call.get_by_test_id("approve").click()
    expect(page.get_by_test_id("message-assistant")).to_contain_text("Results: sent 50 EUR to Ann")
    _idle(page)

    page.reload()  # decided: nothing waits any more

    expect(page.get_by_test_id("message-assistant")).to_contain_text("Results: sent 50 EUR to Ann")
    expect(page.get_by_test_id("approve")).to_have_count(0)
    _idle(page)


def test_leaving_while_a_turn_runs_asks_first(
    serve: Callable[[Any], str], open_page: Callable[..., Any]
) -> None:
    RELEASE.clear()
    try:
        page = open_page(serve(build_app())).page
        _ask(page, "something slow")
        expect(page.get_by_test_id("status")).to_have_text("Running…")

        with page.expect_event("dialog") as asked:
            page.close(run_before_unload=True)
        dialog = asked.value
        assert dialog.type == "beforeunload"
        dialog.dismiss()  # stay: the turn goes on

        expect(page.get_by_test_id("status")).to_have_text("Running…")
        RELEASE.set()
        expect(page.get_by_test_id("message-assistant")).to_contain_text("Results: released")
        _idle(page)
        with page.expect_event("close"):  # nothing runs: no question asked
            page.close(run_before_unload=True)
    finally:
        RELEASE.set()


@pytest.mark.parametrize("named", [True, False], ids=["turn-named", "sent-only"])
def test_a_reload_while_a_turn_runs_reads_the_turn_again_and_shows_it_once(
    serve: Callable[[Any], str], open_page: Callable[..., Any], named: bool
) -> None:
    RELEASE.clear()
    STARTED.clear()
    try:
        page = open_page(serve(build_app(memory=True))).page
        _ask(page, "something slow")
        expect(page.get_by_test_id("status")).to_have_text("Running…")
        # The page keeps the turn as it sends (its conversation), and its id once the
        # server's first message names it.
        stored = page.evaluate("JSON.parse(sessionStorage.getItem('ostinato.turn'))")
        assert stored["conversationId"].startswith("conv-")
        assert stored["question"] == "something slow"
        assert STARTED.wait(10), "the turn's tool never started on the server"
        if named:
            page.wait_for_function("JSON.parse(sessionStorage.getItem('ostinato.turn')).turnId")
        else:  # as if reloaded before the server's first message arrived
            page.evaluate(
                "() => { const t = JSON.parse(sessionStorage.getItem('ostinato.turn'));"
                " sessionStorage.setItem('ostinato.turn', JSON.stringify({...t, turnId: null}));"
                " sessionStorage.removeItem('ostinato.conversation') }"
            )

        page.once("dialog", lambda dialog: dialog.accept())  # leave: the turn goes on
        page.reload()

        expect(page.get_by_test_id("message-user")).to_have_text(["something slow"])
        expect(page.get_by_test_id("status")).to_have_text("Running…")
        RELEASE.set()
        expect(page.get_by_test_id("message-assistant")).to_contain_text("Results: released")
        _idle(page)
        assert page.evaluate("sessionStorage.getItem('ostinato.turn')") is None

        page.reload()  # ended: the stored conversation shows it, once

        expect(page.get_by_test_id("message-user")).to_have_text(["something slow"])
        expect(page.get_by_test_id("message-assistant")).to_have_count(1)
        _idle(page)
    finally:
        RELEASE.set()


def test_an_approval_decided_in_a_second_tab_is_refused_in_the_first(
    serve: Callable[[Any], str], open_page: Callable[..., Any]
) -> None:
    url = serve(build_app(memory=True))
    first = open_page(url).page
    _ask(first, "Please pay Ann 50 EUR")
    expect(first.get_by_test_id("tool-call")).to_have_attribute("data-state", "pending")
    # A duplicated tab starts with a copy of the tab's storage.
    storage = first.evaluate("JSON.stringify(Object.assign({}, sessionStorage))")
    second = open_page(url).page
    second.evaluate(
        "s => { for (const [k, v] of Object.entries(JSON.parse(s))) sessionStorage.setItem(k, v) }",
        storage,
    )
    second.reload()
    second.get_by_test_id("tool-call").get_by_test_id("approve").click()
    expect(second.get_by_test_id("message-assistant")).to_contain_text("Results: sent 50 EUR")

    first.get_by_test_id("tool-call").get_by_test_id("approve").click()

    expect(first.get_by_test_id("status")).to_contain_text("decided already")
    expect(first.get_by_test_id("message-assistant")).not_to_contain_text("sent 50 EUR")
