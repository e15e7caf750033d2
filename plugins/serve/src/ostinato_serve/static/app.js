// The ostinato web page: chat with the served client and watch its tool loop.
//
// This module holds the page's state (the conversation, the turn running, the decisions
// waiting) and wires the composer, the buttons and the token prompt to the server
// (server.js); each assistant message is a TurnView (turn.js). A reload shows the tab's
// conversation again (tab.js keeps its id). Untrusted text (answers, tool arguments and
// results, error messages) only ever reaches the page as text.

import { el, scrollToEnd } from "./dom.js";
import {
  failure,
  forgetToken,
  getJson,
  headers,
  postStream,
  readAgain,
  saveToken,
  serverSentEvents,
  token,
} from "./server.js";
import { offerAgain, showStoredMessages } from "./replay.js";
import {
  rememberConversation,
  rememberedConversation,
  rememberedPending,
  rememberPending,
  rememberTurn,
  rememberedTurn,
} from "./tab.js";
import { TurnView } from "./turn.js";

const STATUS_TEXT = {
  connecting: "Connecting…",
  idle: "Idle",
  running: "Running…",
  waiting: "Waiting for approval",
  reconnecting: "Reconnecting…",
};
// How often the page reads a turn again after losing its connection, and how long it
// waits before each try (the server keeps a turn running a few seconds without readers).
const RECONNECT_TRIES = 5;
const RECONNECT_DELAY_MS = 500;

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
  abort: null, // the AbortController of the turn streaming now
  turnId: null, // the id of the turn streaming now (Stop cancels it on the server)
  pending: null, // {id, view, decisions: {callId: decision}, callIds: [...]}
  streams: 0, // how many turn streams the page has started: one started meanwhile shows its own state
};

function setStatus(kind, text) {
  ui.status.dataset.state = kind;
  ui.status.textContent = text || STATUS_TEXT[kind] || kind;
}

// A refused request: a 401 asks for the token again.
async function refused(response) {
  const error = await failure(response);
  if (error.status === 401) askForToken(error.message);
  return error;
}

function addUserMessage(text) {
  ui.empty.hidden = true;
  ui.transcript.append(
    el("article", { class: "message message-user", testid: "message-user", "aria-label": "You", text }),
  );
}

const viewHooks = {
  conversation(id) {
    state.conversationId = id;
    rememberConversation(id);
  },
  offered(view, pendingId, callIds, calls) {
    state.pending = { id: pendingId, view, decisions: {}, callIds };
    const round = view.current ? view.current.number : 1;
    const { question } = view;
    rememberPending({ id: pendingId, conversationId: state.conversationId, question, round, calls });
  },
  decide,
};

function addTurnView(question) {
  const view = new TurnView(viewHooks);
  view.question = question;
  ui.transcript.append(view.node);
  return view;
}

// What replay.js builds a transcript with.
const transcript = { addUserMessage, addTurnView, node: ui.transcript };

function setBusy(busy) {
  ui.send.disabled = busy || Boolean(state.pending);
  ui.stop.hidden = !busy;
  ui.composer.setAttribute("aria-busy", String(busy));
}

// A new conversation's id, made here so that the tab knows it before the server answers.
function newConversationId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `conv-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

// Runs a turn's stream into its view: the response of open(signal) (default: POST
// path with body), read on after the last event id when the connection is lost. The turn
// stays in the tab's storage while it runs, so a reload reads it again: sending, its
// conversation (the turn's id is not known yet: the reload asks the server for the
// conversation's running turn), then its id and the position read.
async function runStream(path, body, view, open = (signal) => postStream(path, body, signal)) {
  const abort = new AbortController();
  state.abort = abort;
  state.streams += 1;
  if (body && state.conversationId) {
    const conversationId = state.conversationId;
    rememberTurn({ turnId: null, lastId: 0, conversationId, question: view.question });
  }
  setBusy(true);
  setStatus("running");
  let ended = false;
  let errorMessage = null;
  // The turn's id and the last event id read: a lost connection reads on from there,
  // and an event read before (its id not above the last) is never shown twice.
  let turnId = null;
  let lastId = 0;
  const read = async (response) => {
    if (!response.ok) throw await refused(response);
    for await (const message of serverSentEvents(response)) {
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        throw new Error(`the server sent an unreadable "${message.event}" event`);
      }
      if (message.event === "turn") {
        if (turnId !== null) {
          view.reconnecting(false); // read again: the page knows the turn already
          continue;
        }
        turnId = data.turn_id || null;
        state.turnId = turnId;
        if (turnId) {
          const conversationId = data.conversation_id;
          rememberTurn({ turnId, lastId, conversationId, question: view.question });
        }
      }
      if (message.id !== null) {
        const id = Number(message.id);
        if (id <= lastId) continue;
        lastId = id;
        const remembered = rememberedTurn();
        if (remembered && remembered.turnId === turnId) rememberTurn({ ...remembered, lastId });
      }
      view.handle(message.event, data);
      if (message.event === "loop_ended") ended = true;
      if (message.event === "error") {
        ended = true;
        errorMessage = (data.error && data.error.message) || "the turn failed";
      }
    }
  };
  try {
    let lost = null;
    try {
      await read(await open(abort.signal));
    } catch (error) {
      if (abort.signal.aborted || turnId === null || error.status) throw error;
      lost = error;
    }
    for (let tries = 0; !ended && turnId !== null && tries < RECONNECT_TRIES; tries += 1) {
      setStatus("reconnecting");
      view.reconnecting(true);
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS * (tries + 1)));
      if (abort.signal.aborted) throw lost || new Error("stopped");
      try {
        await read(await readAgain(turnId, lastId, abort.signal));
        lost = null;
      } catch (error) {
        if (abort.signal.aborted || error.status) throw error;
        lost = error;
      }
    }
    if (!ended && lost) throw lost;
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
    if (state.abort === abort) {
      state.abort = null;
      state.turnId = null;
    }
    const remembered = rememberedTurn();
    if (remembered && (remembered.turnId === turnId || remembered.turnId === null)) {
      rememberTurn(null);
    }
    // a turn that failed or stopped leaves no decision waiting
    if (state.pending && state.pending.view === view && (errorMessage !== null || !ended)) {
      state.pending = null;
      rememberPending(null);
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

// One decision of the waiting calls; once each has one, the turn resumes.
function decide(view, card, callId, decision) {
  const pending = state.pending;
  if (!pending || pending.view !== view || !pending.callIds.includes(callId)) return;
  pending.decisions[callId] = decision;
  view.showDecision(card, decision);
  const missing = pending.callIds.filter((id) => !(id in pending.decisions));
  if (missing.length) {
    const next = pending.view.node.querySelector('[data-testid="approve"]');
    if (next) next.focus({ preventScroll: true });
    return;
  }
  state.pending = null;
  rememberPending(null); // the resumed turn takes it: the server keeps it no longer
  pending.view.answer.textContent = "";
  pending.view.answer.classList.remove("note");
  const path = `api/approvals/${encodeURIComponent(pending.id)}`;
  runStream(path, { decisions: pending.decisions }, pending.view);
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
  if (!state.conversationId) state.conversationId = newConversationId();
  addUserMessage(text);
  const view = addTurnView(text);
  scrollToEnd();
  runStream("api/turns", { message: text, conversation_id: state.conversationId }, view);
}

// Stop: the server cancels the turn (closing its connection alone would leave it
// running: turns outlive their connection), then the stream is closed.
async function stopTurn() {
  const abort = state.abort;
  if (!abort) return;
  if (state.turnId) {
    try {
      const path = `api/turns/${encodeURIComponent(state.turnId)}/cancel`;
      await fetch(path, { method: "POST", headers: headers() });
    } catch {
      // the stream's own end says what happened
    }
  }
  abort.abort();
}

function newConversation() {
  if (state.abort) state.abort.abort();
  state.abort = null;
  state.pending = null;
  state.conversationId = null;
  rememberConversation(null);
  rememberPending(null);
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
    rememberConversation(body.id);
    ui.conversationSelect.value = body.id;
    showStoredMessages(body.messages || [], transcript);
    setStatus("idle");
  } catch (error) {
    if (error.status === 401) askForToken(error.message);
    else setStatus("error", `Error: ${error.message}`);
  }
}

// The tab's conversation, shown again after a reload, with the decision still waiting.
async function restoreConversation() {
  const running = rememberedTurn();
  // a first message reloaded away before the server answered: only its turn knows it
  const id = rememberedConversation() || (running && running.conversationId);
  if (!id || state.conversationId) return;
  const pending = rememberedPending();
  const runs = running && running.conversationId === id;
  let messages = [];
  try {
    messages = (await getJson(`api/conversations/${encodeURIComponent(id)}`)).messages || [];
  } catch (error) {
    if (error.status === 401) {
      askForToken(error.message);
      return;
    }
    // a first turn waiting for approval is not kept yet: its pending call is all there is
    if (error.status !== 404 || ((!pending || pending.conversationId !== id) && !runs)) {
      rememberConversation(null);
      rememberPending(null);
      const gone = error.status === 404 ? " is no longer on the server" : " could not be read";
      setStatus("error", `Error: this tab's conversation${gone} (${error.message}); a new one starts`);
      return;
    }
  }
  state.conversationId = id;
  showStoredMessages(messages, transcript);
  if (pending && pending.conversationId === id) {
    offerAgain(pending, transcript);
    setBusy(false);
  }
  if (runs) await reattach(running);
  return true;
}

// The turn that ran when the page was reloaded: read again from its start into a new view
// (the page shows nothing of it yet), unless it has ended (its messages are stored then).
async function reattach(running) {
  let turnId = running.turnId;
  let stands;
  try {
    if (turnId === null) {
      // reloaded while the message was sent: the conversation's running turn, if it came
      const conversation = encodeURIComponent(running.conversationId);
      turnId = (await getJson(`api/conversations/${conversation}/turn`)).turn_id;
      if (!turnId) {
        rememberTurn(null); // it never started, or ended: the stored conversation has it
        return;
      }
    }
    stands = await getJson(`api/turns/${encodeURIComponent(turnId)}`);
  } catch {
    rememberTurn(null); // forgotten by the server: the stored conversation is all there is
    return;
  }
  if (stands.done) {
    rememberTurn(null);
    return;
  }
  addUserMessage(running.question);
  const view = addTurnView(running.question);
  scrollToEnd();
  const path = `api/turns/${encodeURIComponent(turnId)}`;
  runStream(path, null, view, (signal) => readAgain(turnId, 0, signal));
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
  const streams = state.streams;
  saveToken(value);
  try {
    // a request that needs the token: 401 means it is wrong
    const response = await fetch("api/conversations", { headers: headers() });
    if (response.status === 401) {
      forgetToken();
      throw await refused(response);
    }
  } catch (error) {
    setStatus("error", `Error: ${error.message}`);
    return;
  }
  ui.token.value = "";
  ui.auth.hidden = true;
  await showRestored(streams);
  refreshConversations();
  ui.question.focus();
}

function tokenFromFragment() {
  const match = /(?:^#|&)token=([^&]*)/.exec(window.location.hash);
  if (!match) return;
  saveToken(decodeURIComponent(match[1]));
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
  const streams = state.streams;
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
  ui.stop.addEventListener("click", stopTurn);
  ui.newConversation.addEventListener("click", newConversation);
  ui.auth.addEventListener("submit", submitToken);
  ui.conversationSelect.addEventListener("change", () => openConversation(ui.conversationSelect.value));
  // a running turn goes on on the server when the page is left: the browser asks first
  window.addEventListener("beforeunload", (event) => {
    if (state.abort) event.preventDefault();
  });
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
  await showRestored(streams);
  refreshConversations();
  ui.question.focus();
}

// Idle (or waiting), with the tab's conversation shown again, unless a turn streamed
// since `streams` was read: a message sent while the page connected shows its own
// state, running or ended (an error it ended with stays shown).
async function showRestored(streams) {
  const quiet = () => state.streams === streams && !state.abort;
  if (quiet()) setStatus("idle");
  if ((await restoreConversation()) && quiet()) setStatus(state.pending ? "waiting" : "idle");
}

start();
