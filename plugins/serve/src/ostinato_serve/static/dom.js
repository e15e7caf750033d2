// Building the page's elements, from text only: nothing here ever parses HTML, so model
// text, tool arguments and results, and error messages can never become markup.

export function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "testid") node.dataset.testid = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

export function button(text, props) {
  return el("button", { type: "button", text, ...props });
}

// Follow the conversation as it grows, unless the reader scrolled up to read.
export function scrollToEnd() {
  const root = document.documentElement;
  if (window.innerHeight + window.scrollY >= root.scrollHeight - 160) {
    window.scrollTo(0, root.scrollHeight);
  }
}

// Tool arguments: short ones on one line, long ones laid out; text that is not JSON
// (yet: it may still be streaming) as the model wrote it.
export function formatArguments(text) {
  if (!text) return "{}";
  try {
    const value = JSON.parse(text);
    const oneLine = JSON.stringify(value, null, 1).replace(/\n\s*/g, " ");
    return oneLine.length <= 72 ? oneLine : JSON.stringify(value, null, 2);
  } catch {
    return text;
  }
}

export function formatMs(ms) {
  if (ms < 1) return "<1 ms";
  if (ms < 10000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

// The answer's text in a ChatResponse's JSON form (null when it has none).
export function answerText(response) {
  const generation = response && response.generations && response.generations[0];
  const output = generation && generation.output;
  return output && typeof output.text === "string" ? output.text : null;
}
