// A case's turns: expected and actual tool calls and responses side by side, with their differences.
// A classic script (templates/index.html loads them in order): its names are shared with the others.
"use strict";

// ---- turns: tool calls and responses side by side ---------------------------------------------------

function textOf(content) {
  if (!content || !Array.isArray(content.parts)) return "";
  return content.parts.filter(p => p && typeof p.text === "string").map(p => p.text).join("");
}

// A turn's story in the order it happened: the agent's intermediate texts and its tool calls,
// each call with its response (or error), paired by id as ADK pairs them, else by name.
function story(invocation) {
  const data = (invocation || {}).intermediate_data || {};
  const steps = [], waiting = [];
  const call = c => { const step = {kind: "call", name: c.name, args: c.args || {}, id: c.id || null}; steps.push(step); waiting.push(step); };
  const answer = r => {
    const at = waiting.findIndex(s => (r.id && s.id) ? s.id === r.id : s.name === r.name);
    if (at >= 0) waiting.splice(at, 1)[0].response = r.response;
    else steps.push({kind: "call", name: r.name, args: null, response: r.response});  // a response with no call seen
  };
  const text = (author, parts) => {
    const said = (parts || []).filter(p => p && typeof p.text === "string" && p.text && !p.thought).map(p => p.text).join("");
    if (said) steps.push({kind: "text", author: author, text: said});
  };
  if (Array.isArray(data.invocation_events)) {
    for (const event of data.invocation_events) {
      const parts = ((event || {}).content || {}).parts || [];
      text(event.author, parts);
      for (const part of parts) {
        if (part && part.function_call) call(part.function_call);
        else if (part && part.function_response) answer(part.function_response);
      }
    }
  } else {  // the eval set's form: texts, calls and responses in separate lists
    for (const item of data.intermediate_responses || []) if (Array.isArray(item)) text(item[0], item[1]);
    for (const c of data.tool_uses || []) call(c);
    for (const r of data.tool_responses || []) answer(r);
  }
  return steps;
}

function toolCalls(invocation) { return story(invocation).filter(s => s.kind === "call" && s.args !== null); }

function turns(records) {
  if (!records.length) return el("p", {class: "muted"}, "No turns recorded.");
  return el("div", {class: "turns"}, records.map((record, i) => turn(record, i)));
}

// A content's images, sounds and videos, by the hash its record keeps (docs/media.md, "Seeing media"):
// the URL is built from the hash alone, checked to be one. How each is offered (`show_as`: an element, or
// null for a type the page does not show) comes with the case (results/media_folder.py's `as_shown`), so the
// viewer and its export offer a medium alike; one the page does not show is a file to download.
function mediaOf(content) {
  const shown = ((content || {}).parts || []).map(p => (p || {}).inline_data)
    .filter(b => b && typeof b.sha256 === "string" && /^[0-9a-f]{64}$/.test(b.sha256));
  if (!shown.length) return null;
  return el("div", {class: "media"}, shown.map(blob => {
    const type = typeof blob.mime_type === "string" ? blob.mime_type.toLowerCase() : "";
    const src = MODE === "static" ? `data/media/${blob.sha256}` : `/api/media/${blob.sha256}?type=${encodeURIComponent(type)}`;
    const about = `${type || "unknown type"}${typeof blob.size === "number" ? `, ${fmtBytes(blob.size)}` : ""}`;
    const player = blob.show_as === "img" ? el("img", {src: src, alt: about, title: about})
      : blob.show_as === "audio" ? el("audio", {src: src, controls: true, preload: "metadata", title: about})
      : blob.show_as === "video" ? el("video", {src: src, controls: true, preload: "metadata", title: about})
      : download(blob);
    return el("figure", {class: "medium"}, player, el("figcaption", {class: "muted small"}, about));
  }));
}

// A medium of a type the page does not show, as a link that saves it under its file name.
function download(blob) {
  const link = el("a", {class: "download", download: String(blob.file_name || blob.sha256)}, `Download ${blob.file_name || "file"}`);
  // Not through el's href rule (this page's own routes only): a URL made of a checked hash alone.
  link.setAttribute("href", MODE === "static" ? `data/media/${blob.sha256}` : `/api/media/${blob.sha256}?download`);
  return link;
}

function fmtBytes(n) {
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;
}

function turn(record, i) {
  const expected = record.expected, actual = record.actual;
  const user = textOf((actual || expected || {}).user_content);
  const expCalls = toolCalls(expected), actCalls = toolCalls(actual);
  const expText = textOf((expected || {}).final_response), actText = textOf((actual || {}).final_response);
  const marks = callMarks(expCalls, actCalls);
  const [expWords, actWords] = wordDiff(expText, actText);
  return el("section", {class: "turn"},
    el("h3", {}, `Turn ${i + 1}`),
    el("div", {class: "user"}, el("span", {class: "who"}, "User"), el("p", {class: "pre"}, user || "(no text)"),
      mediaOf((actual || expected || {}).user_content)),
    el("div", {class: "sides"},
      expected ? el("div", {class: "side expected"}, el("h4", {}, "Expected"),
        storyList(story(expected), marks.expected), finalBlock(expected.final_response ? expWords : null, "(no response expected)",
          expected.final_response)) : null,
      el("div", {class: "side actual"}, el("h4", {}, expected ? "Actual" : "Agent"),
        actual ? [storyList(story(actual), marks.actual), finalBlock(expected ? actWords : actText || null, "(no response)",
          actual.final_response)]
               : el("p", {class: "muted"}, "(the agent gave no turn)"))));
}

function finalBlock(content, none, response) {
  return el("div", {class: "final"}, el("span", {class: "who"}, "Final response"),
    el("div", {class: "response pre"}, content || el("span", {class: "muted"}, none)), mediaOf(response));
}

// The steps between the user's message and the final response; tool calls numbered as the marks count them.
function storyList(steps, marks) {
  if (!steps.length) return el("p", {class: "muted small"}, "no tool calls");
  let number = 0;
  return el("ol", {class: "story"}, steps.map(step => {
    if (step.kind === "text") return el("li", {class: "step said"}, el("span", {class: "who"}, step.author ? `${step.author} says` : "agent says"), el("p", {class: "pre"}, step.text));
    const mark = step.args === null ? {} : (marks[number++] || {});
    return el("li", {class: "step call" + (mark.call ? " diff-call" : "")},
      step.args === null ? el("code", {}, `${step.name}: a response with no call`) : callCode(step, mark),
      "response" in step ? toolResponse(step.response) : null);
  }));
}

function callList(calls, marks) {
  if (!calls.length) return el("p", {class: "muted small"}, "no tool calls");
  return el("ol", {class: "calls"}, calls.map((call, i) => el("li", {class: (marks[i] || {}).call ? "diff-call" : ""}, callCode(call, marks[i] || {}))));
}

// A call as every report writes it (results/notation.py): name(key='value', n=2).
function callCode(call, mark) {
  return [el("code", {}, call.name, "("),
    Object.entries(call.args || {}).map(([key, v], j) => [j ? el("code", {}, ", ") : null,
      el("code", {class: (mark.args || []).includes(key) ? "diff-arg" : ""}, `${key}=${pyRepr(v)}`)]),
    el("code", {}, ")")];
}

// What a tool returned, pretty-printed; an error ({"error": …}, as ADK reports a failed call) marked as one.
function toolResponse(response) {
  const failed = response && typeof response === "object" && !Array.isArray(response) && typeof response.error === "string" && response.error;
  const text = typeof response === "string" ? response : JSON.stringify(response, null, 2) ?? "null";
  const lines = text.split("\n").length;
  const body = el("pre", {class: failed ? "tool-response tool-error" : "tool-response"}, text);
  const head = failed ? el("span", {class: "tool-error-head"}, `✗ error: ${response.error}`) : null;
  if (lines <= FOLD_LINES && text.length <= FOLD_CHARS) return el("div", {class: "tool-out"}, el("span", {class: "arrow"}, "→ "), head, failed && Object.keys(response).length === 1 ? null : body);
  return el("details", {class: "tool-out"}, el("summary", {}, "→ ", head, failed ? " " : "", `response (${lines} lines, ${text.length} characters)`), body);
}
const FOLD_LINES = 12, FOLD_CHARS = 1500;

// A JSON value as Python writes it (repr), the notation of results/notation.py.
function pyRepr(v) {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return pyString(v);
  if (Array.isArray(v)) return "[" + v.map(pyRepr).join(", ") + "]";
  return "{" + Object.entries(v).map(([k, x]) => `${pyString(k)}: ${pyRepr(x)}`).join(", ") + "}";
}

function pyString(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
  if (quote === "'") body = body.replace(/'/g, "\\'");
  return quote + body + quote;
}

// Calls are paired by position: a different name marks the call, a different value marks the argument.
function callMarks(expected, actual) {
  const marks = {expected: [], actual: []};
  for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
    const e = expected[i], a = actual[i];
    if (!e || !a || e.name !== a.name) { marks.expected[i] = {call: !!e}; marks.actual[i] = {call: !!a}; continue; }
    const keys = [...new Set([...Object.keys(e.args || {}), ...Object.keys(a.args || {})])];
    const differ = keys.filter(k => JSON.stringify((e.args || {})[k]) !== JSON.stringify((a.args || {})[k]));
    marks.expected[i] = {args: differ}; marks.actual[i] = {args: differ};
  }
  return marks;
}

// A word diff by longest common subsequence: removed words marked on the left, added on the right.
function wordDiff(left, right) {
  const split = text => text.split(/(\s+|[^\s\p{L}\p{N}_]+)/u).filter(Boolean);  // words, spaces, punctuation
  const a = split(left), b = split(right);
  if (a.length * b.length > 250000) return [el("span", {}, left), el("span", {}, right)];
  const table = Array.from({length: a.length + 1}, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--)
    table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
  const outA = [], outB = [];
  let i = 0, j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) { outA.push(a[i]); outB.push(b[j]); i++; j++; }
    else if (j < b.length && (i >= a.length || table[i][j + 1] >= table[i + 1][j])) { outB.push(el("ins", {}, b[j])); j++; }
    else { outA.push(el("del", {}, a[i])); i++; }
  }
  return [el("span", {}, outA), el("span", {}, outB)];
}

function repeats(c) {
  if (!c.repeat && !(c.runs || []).length) return null;
  const r = c.repeat || {};
  const ci = Array.isArray(r.pass_rate_ci) ? ` (95% interval ${fmtScore(r.pass_rate_ci[0])}–${fmtScore(r.pass_rate_ci[1])})` : "";
  return el("section", {class: "repeats"},
    el("h2", {}, "Repeated runs"),
    el("p", {}, `Passed ${r.passed} of ${r.runs} runs: pass rate ${fmtScore(r.pass_rate)}${ci}`,
      r.stability ? el("span", {class: "tag"}, r.stability.replace("_", " ")) : r.flaky ? el("span", {class: "tag warn"}, "flaky") : null),
    tableWrap(el("table", {class: "runs-of-case"},
      el("thead", {}, el("tr", {}, el("th", {}, "Run"), el("th", {}, "Status"), el("th", {}, "Criteria"), el("th", {}, "Response"))),
      el("tbody", {}, (c.runs || []).map((run, i) => el("tr", {},
        el("td", {}, String(i + 1)), el("td", {}, badge(run.status)),
        el("td", {}, (run.criteria || []).filter(x => x.status !== "informational").map(x => el("div", {}, `${x.name}: ${fmtScore(x.score)} `, badge(x.status)))),
        el("td", {class: "pre"}, (run.invocations || []).map(inv => textOf((inv.actual || {}).final_response)).join("\n"))))))));
}

const SHOWN = new Set(["eval_set_id", "eval_id", "status", "error", "error_detail", "reason", "criteria", "invocations",
  "source_file", "session_id", "duration_s", "repeat", "runs", "cassette", "quarantined"]);

function more(c) {
  const rest = Object.entries(c).filter(([key, v]) => !SHOWN.has(key) && v !== null && v !== undefined &&
    !(typeof v === "object" && !Array.isArray(v) && !Object.keys(v).length));
  if (!rest.length) return null;
  return el("section", {}, el("h2", {}, "More about this case"), el("dl", {class: "kv"}, rest.map(([k, v]) => [el("dt", {}, k), el("dd", {}, value(v))])));
}

