// The server's API as the page uses it: the bearer token (kept for this tab only), JSON
// requests, the documented error body, and server-sent events read from a fetch response
// (not EventSource, so the token travels in a header).

const TOKEN_KEY = "ostinato.token";

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

export function saveToken(value) {
  sessionStorage.setItem(TOKEN_KEY, value);
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

export function headers(extra) {
  const result = { Accept: "application/json", ...extra };
  const value = token();
  if (value) result.Authorization = `Bearer ${value}`;
  return result;
}

// A refused request: its status and the message of its error body.
export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function failure(response) {
  let message = `the server answered ${response.status} ${response.statusText}`.trim();
  try {
    const body = await response.json();
    if (body && body.error && typeof body.error.message === "string") message = body.error.message;
  } catch {
    // not the documented error body: the status line says what happened
  }
  return new HttpError(response.status, message);
}

export async function getJson(path) {
  const response = await fetch(path, { headers: headers() });
  if (!response.ok) throw await failure(response);
  return response.json();
}

export function postStream(path, body, signal) {
  return fetch(path, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify(body),
    signal,
  });
}

// A turn's events again, after the last event id the page read (it lost its connection).
export function readAgain(turnId, lastId, signal) {
  return fetch(`api/turns/${encodeURIComponent(turnId)}/events`, {
    headers: headers({ Accept: "text/event-stream", "Last-Event-ID": String(lastId) }),
    signal,
  });
}

// The messages of an event stream ({event, data, id}), parsed line by line (LF, CRLF or
// CR); id is the message's own "id:" field, or null.
export async function* serverSentEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let eventName = "";
  let data = [];
  let id = null;
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
    const message = data.length ? { event: eventName || "message", data: data.join("\n"), id } : null;
    eventName = "";
    data = [];
    id = null;
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
        else if (field === "id") id = value;
      }
    }
    if (done) {
      const message = dispatch();
      if (message) yield message;
      return;
    }
  }
}
