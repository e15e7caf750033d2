// What this tab remembers across a reload (sessionStorage: this tab only, gone when it
// closes): the conversation it shows, the turn running in it (its id and the position
// read), and the calls of a turn waiting for a decision.
// The conversation's messages are the server's to keep; only their id lives here.

const CONVERSATION_KEY = "ostinato.conversation";
const PENDING_KEY = "ostinato.pending";
const TURN_KEY = "ostinato.turn";

export function rememberedConversation() {
  return sessionStorage.getItem(CONVERSATION_KEY) || null;
}

export function rememberConversation(id) {
  if (id) sessionStorage.setItem(CONVERSATION_KEY, id);
  else sessionStorage.removeItem(CONVERSATION_KEY);
}

// {id, conversationId, question, round, calls} of the turn waiting, or null.
export function rememberedPending() {
  try {
    const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) || "null");
    return pending && pending.id && Array.isArray(pending.calls) ? pending : null;
  } catch {
    return null; // not written by this page: nothing to offer
  }
}

export function rememberPending(pending) {
  if (pending) sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  else sessionStorage.removeItem(PENDING_KEY);
}

// {turnId, lastId, conversationId, question} of the turn streaming now, or null. It is
// kept before the message is sent, with turnId null until the server names the turn: a
// reload in between asks the server for the conversation's running turn.
export function rememberedTurn() {
  try {
    const turn = JSON.parse(sessionStorage.getItem(TURN_KEY) || "null");
    return turn && turn.conversationId ? turn : null;
  } catch {
    return null;
  }
}

export function rememberTurn(turn) {
  if (turn) sessionStorage.setItem(TURN_KEY, JSON.stringify(turn));
  else sessionStorage.removeItem(TURN_KEY);
}
