// A conversation shown again from data rather than from a live stream: the messages a
// server keeps (its JSON form of each message), and the calls of a turn still waiting
// for a decision after a reload. transcript: {addUserMessage(text), addTurnView(question),
// node} of the page (app.js).

import { formatArguments } from "./dom.js";

export function showStoredMessages(messages, transcript) {
  let view = null;
  let round = 0;
  for (const message of messages) {
    if (message.type === "user") {
      transcript.addUserMessage(message.text || "");
      view = null;
    } else if (message.type === "assistant") {
      if (!view) {
        view = transcript.addTurnView();
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

// The turn waiting for a decision, as the tab remembered it (tab.js): its question (unless
// the stored messages end with it) and its calls, with their decisions offered again.
export function offerAgain(pending, transcript) {
  const users = transcript.node.querySelectorAll('[data-testid="message-user"]');
  const last = users.length ? users[users.length - 1].textContent : null;
  if (pending.question && last !== pending.question) transcript.addUserMessage(pending.question);
  const view = transcript.addTurnView(pending.question);
  const round = pending.round || 1;
  for (const call of pending.calls) view.handle("tool_call_requested", { round, call });
  view.handle("approval_required", { round, calls: pending.calls });
  view.handle("pending", { pending_id: pending.id, calls: pending.calls });
  view.handle("loop_ended", { reason: "approval_required" });
}
