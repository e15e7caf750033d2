// One assistant message of the page: the rounds of a turn, their tool calls (arguments
// as they stream in, state, result, duration), the decisions waiting on them, and the
// answer. It is fed the turn's server-sent events in order (handle) and knows nothing
// of requests.

import { answerText, button, el, formatArguments, formatMs, scrollToEnd } from "./dom.js";

export class TurnView {
  // hooks: conversation(id) when the server names the conversation; offered(view,
  // pendingId, callIds, calls) when calls wait for decisions; decide(view, card, callId,
  // decision) when the user decides one.
  constructor(hooks) {
    this.hooks = hooks;
    this.waiting = 0;
    this.rounds = new Map();
    this.cards = new Map(); // "round|call id" -> card (ids may repeat across rounds)
    this.latest = new Map(); // call id -> its latest card
    this.drafts = new Map(); // "round:index" -> card, while a call streams in
    this.lastDraft = new Map(); // round -> index of the call streaming last
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

  // The connection was lost and the page reads the turn again (shown on the message).
  reconnecting(on) {
    if (on) {
      this.node.dataset.reconnecting = "true";
      this.meta.textContent = "Connection lost: reading on where it stopped…";
    } else if (this.node.dataset.reconnecting) {
      delete this.node.dataset.reconnecting;
      this.meta.textContent = "Reconnected.";
    }
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
    let card = call.id ? this.cards.get(`${roundNumber}|${call.id}`) : undefined;
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
      if (index !== undefined && index !== null) {
        card.draftIndex = index;
        this.drafts.set(draftKey, card);
      }
      this.setCardState(card, "requested");
    }
    if (call.id && !card.id) {
      card.id = call.id;
      card.node.dataset.callId = call.id;
      this.cards.set(`${roundNumber}|${call.id}`, card);
      this.latest.set(call.id, card);
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
        if (event.conversation_id) this.hooks.conversation(event.conversation_id);
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
      case "round_abandoned": {
        // a durable turn's round streamed again: what it had shown is withdrawn
        const round = this.round(event.round);
        round.buffer = "";
        this.answer.textContent = "";
        for (const [key, card] of this.drafts) {
          if (key.startsWith(`${event.round}:`) && !card.id) {
            card.node.remove();
            this.drafts.delete(key);
          }
        }
        break;
      }
      case "tool_call_delta": {
        let index = event.index;
        if (index === null || index === undefined) {
          // no index: a piece with an id starts a call, one without continues the last
          const last = this.lastDraft.get(event.round);
          index = event.id || last === undefined ? `n${this.drafts.size}` : last;
        }
        this.lastDraft.set(event.round, index);
        const card = this.card(event.round, { id: event.id, name: event.name }, index);
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
        // error: the class raised (ValueError...); failure: the kind (cancelled, denied...)
        if (event.failure === "cancelled") this.setCardState(card, "failed", "cancelled");
        else if (event.failure === "denied") this.setCardState(card, "denied");
        else if (event.error) this.setCardState(card, "failed", `failed: ${event.error}`);
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
    if (this.cards.has(`${roundNumber}|${call.id}`)) return undefined;
    for (const [key, card] of this.drafts) {
      if (key.startsWith(`${roundNumber}:`) && !card.id) return card.draftIndex;
    }
    return undefined;
  }

  // A resumed turn's first round is sent with the results of the decided calls: show
  // them on cards still waiting for theirs.
  fillResultsFrom(messages) {
    for (const message of messages) {
      if (message.type !== "tool") continue;
      for (const response of message.responses || []) {
        const card = this.latest.get(response.id);
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
      card.decision = this.decisionBox(card, call);
      card.node.append(card.decision);
    }
    this.waiting = callIds.length;
    this.hooks.offered(this, event.pending_id, callIds, event.calls || []);
    const first = this.node.querySelector('[data-testid="approve"]');
    if (first) first.focus({ preventScroll: true });
  }

  // Approve, deny (with an optional reason the model reads) or edit the arguments.
  decisionBox(card, call) {
    const name = call.name || "this tool";
    const decide = (decision) => this.hooks.decide(this, card, call.id, decision);
    const approve = button("Approve", {
      class: "button small approve",
      testid: "approve",
      "aria-label": `Approve ${name}`,
    });
    const edit = button("Edit", {
      class: "button small",
      testid: "edit",
      "aria-label": `Edit the arguments of ${name}`,
    });
    const deny = button("Deny", {
      class: "button small deny",
      testid: "deny",
      "aria-label": `Deny ${name}`,
    });
    const reason = el("input", {
      type: "text",
      placeholder: "Reason (optional)",
      "aria-label": `Reason for denying ${name}`,
    });
    const editor = el("textarea", {
      class: "edit-arguments",
      rows: "4",
      spellcheck: "false",
      "aria-label": `Arguments for ${name}, as JSON`,
    });
    const run = button("Run with these arguments", {
      class: "button small approve",
      testid: "run-edited",
    });
    const problem = el("p", { class: "edit-problem", role: "alert" });
    const editing = el("div", { class: "editing", hidden: "" }, editor, run, problem);

    approve.addEventListener("click", () => decide({ decision: "approve" }));
    deny.addEventListener("click", () => {
      const text = reason.value.trim();
      decide(text ? { decision: "deny", reason: text } : { decision: "deny" });
    });
    reason.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        deny.click();
      }
    });
    edit.addEventListener("click", () => {
      editing.hidden = false;
      if (!editor.value) {
        try {
          editor.value = JSON.stringify(JSON.parse(card.rawArguments || "{}"), null, 2);
        } catch {
          editor.value = card.rawArguments;
        }
      }
      editor.focus();
    });
    run.addEventListener("click", () => {
      let value;
      try {
        value = JSON.parse(editor.value);
      } catch (error) {
        problem.textContent = `Not JSON: ${error.message}`;
        return;
      }
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        problem.textContent = "The arguments must be a JSON object: { \"name\": value, ... }";
        return;
      }
      decide({ decision: "edit", arguments: value });
    });
    return el("div", { class: "decision" }, el("div", { class: "decision-row" }, approve, edit, deny, reason), editing);
  }

  // What the user decided, shown on the card until the resumed turn reports the call.
  showDecision(card, decision) {
    if (card.decision) card.decision.remove();
    card.decision = null;
    if (decision.decision === "deny") {
      this.setCardState(card, "denied");
      const reason = decision.reason ? ` (${decision.reason})` : "";
      this.setResult(card, `Not run: denied${reason}.`);
    } else if (decision.decision === "edit") {
      card.rawArguments = JSON.stringify(decision.arguments);
      card.args.textContent = formatArguments(card.rawArguments);
      this.setCardState(card, "requested", "approved with edited arguments");
    } else {
      this.setCardState(card, "requested", "approved");
    }
  }

  end(event) {
    const parts = [event.reason ? event.reason.replace(/_/g, " ") : "ended"];
    if (event.rounds) parts.push(`${event.rounds} round${event.rounds === 1 ? "" : "s"}`);
    if (event.usage && event.usage.total_tokens) parts.push(`${event.usage.total_tokens} tokens`);
    parts.push(formatMs(performance.now() - this.startedAt));
    this.meta.textContent = parts.join(" · ");
    if (event.reason === "approval_required") {
      const waiting = this.waiting;
      const calls = `${waiting || "the"} tool call${waiting === 1 ? "" : "s"}`;
      this.answer.textContent = `Waiting for your decision on ${calls} above.`;
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
    const unfinished = ["running", "requested", "pending"]
      .map((kind) => `.tool-call[data-state="${kind}"]`)
      .join(", ");
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
