// The ostinato web page: chat with the served client and watch its tool loop.
//
// Talks to the server's /api endpoints (turns and approvals as server-sent events read
// with fetch, so the bearer token travels in a header). Untrusted text (answers, tool
// arguments and results, error messages) only ever reaches the page as text nodes.
"use strict";

(() => {
  const TOKEN_KEY = "ostinato.token";
  const STATUS_TEXT = { idle: "Idle", running: "Running…", waiting: "Waiting for approval" };

  const $ = (id) => document.getElementById(id);
  const ui = {
    status: $("status"),
    model: $("model"),
    auth: $("auth"),
    token: $("token"),
    tools: $("tools"),
    toolCount: $("tool-count"),
    toolList: $("tool-list"),
    conversations: $("conversations"),
    conversationSelect: $("conversation-select"),
    transcript: $("transcript"),
    empty: $("empty"),
    composer: $("composer"),
    question: $("question"),
    send: $("send"),
    stop: $("stop"),
    newConversation: $("new-conversation"),
  };

  const state = {
    info: null,
    conversationId: null,
    abort: null,
    pending: null, // {id, view, decisions: {callId: decision}, callIds: [...]}
  };

  // ---- small DOM helpers: text only, never HTML ----

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key === "testid") node.dataset.testid = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child !== null && child !== undefined) node.append(child);
    }
    return node;
  }

  function setStatus(kind, text) {
    ui.status.dataset.state = kind;
    ui.status.textContent = text || STATUS_TEXT[kind] || kind;
  }

  function scrollToEnd() {
    const nearEnd =
      window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 160;
    if (nearEnd) window.scrollTo(0, document.documentElement.scrollHeight);
  }

  function formatArguments(text) {
    if (!text) return "{}";
    try {
      const value = JSON.parse(text);
      // short arguments on one line, long ones laid out
      const oneLine = JSON.stringify(value, null, 1).replace(/\n\s*/g, " ");
      return oneLine.length <= 72 ? oneLine : JSON.stringify(value, null, 2);
    } catch {
      return text; // still streaming, or not JSON: shown as the model wrote it
    }
  }

  function formatMs(ms) {
    if (ms < 1) return "<1 ms";
    if (ms < 10000) return `${Math.round(ms)} ms`;
    return `${(ms / 1000).toFixed(1)} s`;
  }

  function answerText(response) {
    const generation = response && response.generations && response.generations[0];
    const output = generation && generation.output;
    return output && typeof output.text === "string" ? output.text : null;
  }

  // ---- the server ----

  function token() {
    return sessionStorage.getItem(TOKEN_KEY) || "";
  }

  function headers(extra) {
    const result = { Accept: "application/json", ...extra };
    const value = token();
    if (value) result.Authorization = `Bearer ${value}`;
    return result;
  }

  class HttpError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  async function failure(response) {
    let message = `the server answered ${response.status} ${response.statusText}`.trim();
    try {
      const body = await response.json();
      if (body && body.error && typeof body.error.message === "string") message = body.error.message;
    } catch {
      // not the documented error body: keep the status line
    }
    if (response.status === 401) askForToken(message);
    return new HttpError(response.status, message);
  }

  async function getJson(path) {
    const response = await fetch(path, { headers: headers() });
    if (!response.ok) throw await failure(response);
    return response.json();
  }

  // Server-sent events from a fetch response, parsed line by line (LF, CRLF or CR).
  async function* serverSentEvents(response) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let eventName = "";
    let data = [];
    const takeLines = function* (final) {
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        if (!match) break;
        // a CR at the very end may be the first half of a CRLF still in flight
        if (match[0] === "\r" && match.index === buffer.length - 1 && !final) break;
        yield buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
      }
    };
    const dispatch = () => {
      const message = data.length ? { event: eventName || "message", data: data.join("\n") } : null;
      eventName = "";
      data = [];
      return message;
    };
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (const line of takeLines(done)) {
        if (line === "") {
          const message = dispatch();
          if (message) yield message;
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          let value = colon < 0 ? "" : line.slice(colon + 1);
          if (value.startsWith(" ")) value = value.slice(1);
          if (field === "event") eventName = value;
          else if (field === "data") data.push(value);
        }
      }
      if (done) {
        const message = dispatch();
        if (message) yield message;
        return;
      }
    }
  }

  // ---- one assistant message: its rounds, tool calls and answer ----

  class TurnView {
    constructor() {
      this.rounds = new Map();
      this.cards = new Map(); // call id -> card
      this.drafts = new Map(); // "round:index" -> card, while a call streams in
      this.current = null;
      this.startedAt = performance.now();
      this.roundsBox = el("div", { class: "rounds" });
      this.answer = el("div", { class: "answer" });
      this.meta = el("div", { class: "turn-meta" });
      this.node = el(
        "article",
        { class: "message message-assistant", testid: "message-assistant", "aria-label": "Assistant" },
        this.roundsBox,
        this.answer,
        this.meta,
      );
    }

    round(number) {
      let round = this.rounds.get(number);
      if (!round) {
        const timing = el("span", { class: "round-timing" });
        const text = el("div", { class: "round-text" });
        const calls = el("div", { class: "round-calls" });
        const node = el(
          "section",
          { class: "round", testid: "round", "data-round": String(number) },
          el("div", { class: "round-head" }, el("strong", { text: `Round ${number}` }), timing),
          text,
          calls,
        );
        round = { number, node, timing, text, calls, buffer: "", startedAt: performance.now() };
        this.rounds.set(number, round);
        this.roundsBox.append(node);
      }
      this.current = round;
      return round;
    }

    card(roundNumber, call, index) {
      let card = call.id ? this.cards.get(call.id) : undefined;
      const draftKey = `${roundNumber}:${index}`;
      if (!card && index !== undefined && index !== null) card = this.drafts.get(draftKey);
      if (!card) {
        const name = el("span", { class: "tool-name" });
        const status = el("span", { class: "tool-state" });
        const duration = el("span", { class: "tool-duration", title: "How long the tool ran" });
        const args = el("pre", { class: "tool-arguments" });
        const result = el("pre", { class: "tool-result" });
        const resultField = el("div", { class: "tool-field", hidden: "" }, el("span", { text: "Result" }), result);
        const node = el(
          "div",
          { class: "tool-call", testid: "tool-call", role: "group" },
          el("div", { class: "tool-head" }, name, status, duration),
          el("div", { class: "tool-field" }, el("span", { text: "Args" }), args),
          resultField,
        );
        card = { node, name, status, duration, args, result, resultField, rawArguments: "", id: "" };
        this.round(roundNumber).calls.append(node);
        if (index !== undefined && index !== null) this.drafts.set(draftKey, card);
        this.setCardState(card, "requested");
      }
      if (call.id && !card.id) {
        card.id = call.id;
        card.node.dataset.callId = call.id;
        this.cards.set(call.id, card);
      }
      if (call.name) {
        card.name.textContent = call.name;
        card.node.setAttribute("aria-label", `Tool call ${call.name}`);
      }
      return card;
    }

    setCardState(card, kind, label) {
      const labels = {
        requested: "requested",
        running: "running…",
        done: "done",
        failed: "failed",
        pending: "needs your approval",
        denied: "denied",
      };
      card.node.dataset.state = kind;
      card.status.textContent = label || labels[kind] || kind;
    }

    setResult(card, text) {
      card.result.textContent = text;
      card.resultField.hidden = false;
    }

    handle(kind, event) {
      switch (kind) {
        case "turn":
          if (event.conversation_id) state.conversationId = event.conversation_id;
          break;
        case "round_started": {
          const round = this.round(event.round);
          round.startedAt = performance.now();
          round.timing.textContent = "waiting for the model…";
          round.buffer = "";
          this.answer.textContent = ""; // the answer is the text of the latest round
          this.fillResultsFrom(event.messages || []);
          break;
        }
        case "text_delta": {
          const round = this.round(event.round);
          if (!round.buffer) this.answer.textContent = "";
          round.buffer += event.text;
          this.answer.classList.remove("note");
          this.answer.append(event.text); // a text node: never markup
          break;
        }
        case "tool_call_delta": {
          const card = this.card(event.round, { id: event.id, name: event.name }, event.index);
          card.rawArguments += event.arguments || "";
          card.args.textContent = formatArguments(card.rawArguments);
          break;
        }
        case "round_finished": {
          const round = this.round(event.round);
          const usage = event.usage || {};
          const parts = [formatMs(performance.now() - round.startedAt)];
          if (usage.total_tokens) parts.push(`${usage.total_tokens} tokens`);
          round.timing.textContent = parts.join(" · ");
          const output = event.response && event.response.generations && event.response.generations[0];
          if (output && output.output && output.output.tool_calls && output.output.tool_calls.length) {
            // a tool round: what the model said on the way belongs to the round, not the answer
            round.text.textContent = round.buffer;
            this.answer.textContent = "";
          }
          break;
        }
        case "tool_call_requested":
        case "tool_started": {
          const card = this.card(event.round, event.call, this.freeDraft(event.round, event.call));
          card.rawArguments = event.call.arguments || "";
          card.args.textContent = formatArguments(card.rawArguments);
          if (kind === "tool_started") {
            card.startedAt = performance.now();
            this.setCardState(card, "running");
          }
          break;
        }
        case "tool_finished": {
          const card = this.card(event.round, event.call);
          this.setResult(card, event.result);
          card.duration.textContent = formatMs((event.duration || 0) * 1000);
          if (event.error) this.setCardState(card, "failed", `failed: ${event.error}`);
          else this.setCardState(card, "done");
          break;
        }
        case "approval_required":
          for (const call of event.calls || []) {
            this.setCardState(this.card(event.round, call), "pending");
          }
          break;
        case "pending":
          this.offerDecisions(event);
          break;
        case "loop_ended":
          this.end(event);
          break;
        case "error":
          this.interrupt(`Error: ${(event.error && event.error.message) || "the turn failed"}`);
          break;
        default:
          break; // a newer server's event: nothing to show
      }
      scrollToEnd();
    }

    // the draft a complete call belongs to when it streamed in without its id: the
    // round's first draft that has none yet
    freeDraft(roundNumber, call) {
      if (this.cards.has(call.id)) return undefined;
      for (const [key, card] of this.drafts) {
        const [round, index] = key.split(":");
        if (Number(round) === roundNumber && !card.id) return Number(index);
      }
      return undefined;
    }

    // A resumed turn's first round is sent with the results of the decided calls: show
    // them on cards still waiting for theirs.
    fillResultsFrom(messages) {
      for (const message of messages) {
        if (message.type !== "tool") continue;
        for (const response of message.responses || []) {
          const card = this.cards.get(response.id);
          if (!card || !card.resultField.hidden) continue;
          this.setResult(card, response.response_data);
          if (card.node.dataset.state !== "denied") this.setCardState(card, "done");
        }
      }
    }

    offerDecisions(event) {
      const callIds = [];
      for (const call of event.calls || []) {
        const card = this.card(this.current ? this.current.number : 1, call);
        this.setCardState(card, "pending");
        callIds.push(call.id);
        const name = call.name || "this tool";
        const reason = el("input", {
          type: "text",
          placeholder: "Reason (optional)",
          "aria-label": `Reason for denying ${name}`,
        });
        const approve = el("button", {
          type: "button",
          class: "button small approve",
          testid: "approve",
          text: "Approve",
          "aria-label": `Approve ${name}`,
        });
        const deny = el("button", {
          type: "button",
          class: "button small deny",
          testid: "deny",
          text: "Deny",
          "aria-label": `Deny ${name}`,
        });
        const box = el("div", { class: "decision" }, approve, deny, reason);
        card.decision = box;
        approve.addEventListener("click", () => decide(card, call.id, { decision: "approve" }));
        deny.addEventListener("click", () => {
          const decision = { decision: "deny" };
          if (reason.value.trim()) decision.reason = reason.value.trim();
          decide(card, call.id, decision);
        });
        reason.addEventListener("keydown", (e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            deny.click();
          }
        });
        card.node.append(box);
      }
      state.pending = { id: event.pending_id, view: this, decisions: {}, callIds };
      const first = this.node.querySelector('[data-testid="approve"]');
      if (first) first.focus({ preventScroll: true });
    }

    end(event) {
      const parts = [event.reason ? event.reason.replace(/_/g, " ") : "ended"];
      if (event.rounds) parts.push(`${event.rounds} round${event.rounds === 1 ? "" : "s"}`);
      if (event.usage && event.usage.total_tokens) parts.push(`${event.usage.total_tokens} tokens`);
      parts.push(formatMs(performance.now() - this.startedAt));
      this.meta.textContent = parts.join(" · ");
      if (event.reason === "approval_required") {
        const waiting = state.pending ? state.pending.callIds.length : 0;
        this.answer.textContent = `Waiting for your decision on ${waiting || "the"} tool call${waiting === 1 ? "" : "s"} above.`;
        this.answer.classList.add("note");
        return;
      }
      const text = answerText(event.response);
      if (text !== null) {
        this.answer.classList.remove("note");
        this.answer.textContent = text;
      }
    }

    // the stream broke, failed or was stopped: nothing may look as if it were still
    // running or still waiting for a decision
    interrupt(message) {
      const unfinished = '.tool-call[data-state="running"], .tool-call[data-state="requested"]';
      for (const card of this.node.querySelectorAll(unfinished)) {
        card.dataset.state = "failed";
        card.querySelector(".tool-state").textContent = "interrupted";
      }
      for (const box of this.node.querySelectorAll(".decision")) box.remove();
      for (const round of this.rounds.values()) {
        if (round.timing.textContent === "waiting for the model…") round.timing.textContent = "interrupted";
      }
      this.fail(message);
    }

    fail(message) {
      const note = el("p", { class: "answer error", role: "alert", text: message });
      this.node.insertBefore(note, this.meta);
    }
  }

  // ---- turns ----

  function addUserMessage(text) {
    ui.empty.hidden = true;
    ui.transcript.append(
      el("article", { class: "message message-user", testid: "message-user", "aria-label": "You", text }),
    );
  }

  function addTurnView() {
    const view = new TurnView();
    ui.transcript.append(view.node);
    return view;
  }

  function setBusy(busy) {
    ui.send.disabled = busy || Boolean(state.pending);
    ui.stop.hidden = !busy;
    ui.composer.setAttribute("aria-busy", String(busy));
  }

  async function runStream(path, body, view) {
    const abort = new AbortController();
    state.abort = abort;
    setBusy(true);
    setStatus("running");
    let ended = false;
    let errorMessage = null;
    try {
      const response = await fetch(path, {
        method: "POST",
        headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      if (!response.ok) throw await failure(response);
      for await (const message of serverSentEvents(response)) {
        let data;
        try {
          data = JSON.parse(message.data);
        } catch {
          throw new Error(`the server sent an unreadable "${message.event}" event`);
        }
        view.handle(message.event, data);
        if (message.event === "loop_ended") ended = true;
        if (message.event === "error") {
          ended = true;
          errorMessage = (data.error && data.error.message) || "the turn failed";
        }
      }
      if (!ended) throw new Error("the connection closed before the turn ended");
    } catch (error) {
      if (abort.signal.aborted) {
        view.interrupt("Stopped.");
        errorMessage = null;
        ended = true;
      } else {
        errorMessage = error instanceof Error ? error.message : String(error);
        view.interrupt(`Error: ${errorMessage}`);
      }
    } finally {
      if (state.abort === abort) state.abort = null;
      // a turn that failed or stopped leaves no decision waiting
      if (state.pending && state.pending.view === view && (errorMessage !== null || !ended)) {
        state.pending = null;
      }
      setBusy(false);
    }
    if (errorMessage !== null) {
      setStatus("error", `Error: ${errorMessage}`);
    } else if (state.pending) {
      setStatus("waiting");
    } else {
      setStatus("idle");
    }
    if (ended) refreshConversations();
  }

  function decide(card, callId, decision) {
    const pending = state.pending;
    if (!pending || !pending.callIds.includes(callId)) return;
    pending.decisions[callId] = decision;
    if (card.decision) card.decision.remove();
    card.decision = null;
    if (decision.decision === "deny") {
      state.pending.view.setCardState(card, "denied");
      const reason = decision.reason ? ` (${decision.reason})` : "";
      state.pending.view.setResult(card, `Not run: denied${reason}.`);
    } else {
      state.pending.view.setCardState(card, "requested", "approved");
    }
    const missing = pending.callIds.filter((id) => !(id in pending.decisions));
    if (missing.length) {
      const next = pending.view.node.querySelector('[data-testid="approve"]');
      if (next) next.focus({ preventScroll: true });
      return;
    }
    state.pending = null;
    pending.view.answer.textContent = "";
    pending.view.answer.classList.remove("note");
    runStream(`api/approvals/${encodeURIComponent(pending.id)}`, { decisions: pending.decisions }, pending.view);
  }

  function send() {
    const text = ui.question.value.trim();
    if (!text || state.abort || state.pending) return;
    if (state.info && state.info.auth && !token()) {
      askForToken("Enter the access token first.");
      return;
    }
    ui.question.value = "";
    resizeQuestion();
    addUserMessage(text);
    const view = addTurnView();
    scrollToEnd();
    runStream("api/turns", { message: text, conversation_id: state.conversationId }, view);
  }

  function newConversation() {
    if (state.abort) state.abort.abort();
    state.abort = null;
    state.pending = null;
    state.conversationId = null;
    for (const node of [...ui.transcript.children]) {
      if (node !== ui.empty) node.remove();
    }
    ui.empty.hidden = false;
    ui.conversationSelect.value = "";
    setBusy(false);
    setStatus("idle");
    ui.question.focus();
  }

  // ---- stored conversations (when the server has memory) ----

  async function refreshConversations() {
    if (!state.info || !state.info.memory || (state.info.auth && !token())) return;
    try {
      const body = await getJson("api/conversations");
      const select = ui.conversationSelect;
      const chosen = state.conversationId || select.value;
      while (select.options.length > 1) select.remove(1);
      for (const conversation of body.conversations || []) {
        const label = `${conversation.id} (${conversation.messages} messages)`;
        select.append(el("option", { value: conversation.id, text: label }));
      }
      select.value = [...select.options].some((o) => o.value === chosen) ? chosen : "";
      ui.conversations.hidden = select.options.length <= 1;
    } catch {
      ui.conversations.hidden = true; // the list is a convenience; chatting still works
    }
  }

  async function openConversation(id) {
    if (!id) return;
    if (state.abort) state.abort.abort();
    try {
      const body = await getJson(`api/conversations/${encodeURIComponent(id)}`);
      newConversation();
      state.conversationId = body.id;
      ui.conversationSelect.value = body.id;
      showStoredMessages(body.messages || []);
      setStatus("idle");
    } catch (error) {
      setStatus("error", `Error: ${error.message}`);
    }
  }

  function showStoredMessages(messages) {
    let view = null;
    let round = 0;
    for (const message of messages) {
      if (message.type === "user") {
        addUserMessage(message.text || "");
        view = null;
      } else if (message.type === "assistant") {
        if (!view) {
          view = addTurnView();
          round = 0;
        }
        round += 1;
        const calls = message.tool_calls || [];
        calls.forEach((call) => {
          const card = view.card(round, call);
          card.rawArguments = call.arguments || "";
          card.args.textContent = formatArguments(card.rawArguments);
          view.setCardState(card, "done");
        });
        if (calls.length) view.round(round).text.textContent = message.text || "";
        else view.answer.textContent = message.text || "";
      } else if (message.type === "tool" && view) {
        view.fillResultsFrom([message]);
      }
    }
  }

  // ---- the token ----

  function askForToken(message) {
    ui.auth.hidden = false;
    if (message) setStatus("error", message.startsWith("Error") ? message : `Error: ${message}`);
    ui.token.focus();
  }

  async function submitToken(event) {
    event.preventDefault();
    const value = ui.token.value.trim();
    if (!value) return;
    sessionStorage.setItem(TOKEN_KEY, value);
    try {
      // a request that needs the token: 401 means it is wrong
      const response = await fetch("api/conversations", { headers: headers() });
      if (response.status === 401) {
        sessionStorage.removeItem(TOKEN_KEY);
        throw await failure(response);
      }
    } catch (error) {
      setStatus("error", `Error: ${error.message}`);
      return;
    }
    ui.token.value = "";
    ui.auth.hidden = true;
    setStatus("idle");
    refreshConversations();
    ui.question.focus();
  }

  function tokenFromFragment() {
    const match = /(?:^#|&)token=([^&]*)/.exec(window.location.hash);
    if (!match) return;
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    // keep the token out of the address bar and the history
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }

  // ---- start ----

  function showInfo(info) {
    state.info = info;
    ui.model.textContent = info.model || "";
    document.title = info.model ? `ostinato · ${info.model}` : "ostinato";
    const tools = info.tools || [];
    ui.toolList.replaceChildren(
      ...tools.map((t) =>
        el("li", {}, el("code", { text: t.name }), t.description ? ` — ${t.description}` : ""),
      ),
    );
    ui.toolCount.textContent = `(${tools.length})`;
    ui.tools.hidden = tools.length === 0;
  }

  function resizeQuestion() {
    ui.question.style.height = "auto";
    ui.question.style.height = `${ui.question.scrollHeight + 2}px`;
  }

  async function start() {
    tokenFromFragment();
    ui.composer.addEventListener("submit", (event) => {
      event.preventDefault();
      send();
    });
    ui.question.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        send();
      }
    });
    ui.question.addEventListener("input", resizeQuestion);
    ui.stop.addEventListener("click", () => state.abort && state.abort.abort());
    ui.newConversation.addEventListener("click", newConversation);
    ui.auth.addEventListener("submit", submitToken);
    ui.conversationSelect.addEventListener("change", () => openConversation(ui.conversationSelect.value));
    try {
      showInfo(await getJson("api/info"));
    } catch (error) {
      setStatus("error", `Error: cannot reach the server (${error.message})`);
      return;
    }
    if (state.info.auth && !token()) {
      ui.auth.hidden = false;
      setStatus("idle", "Token needed");
      ui.token.focus();
      return;
    }
    setStatus("idle");
    refreshConversations();
    ui.question.focus();
  }

  start();
})();
