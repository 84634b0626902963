// A case's turns: expected and actual tool calls and responses side by side, with their differences.
// A classic script (templates/index.html loads them in order): its names are shared with the others.
"use strict";

// ---- turns: tool calls and responses side by side ---------------------------------------------------

function textOf(content) {
  if (!content || !Array.isArray(content.parts)) return "";
  return content.parts.filter(p => p && typeof p.text === "string").map(p => p.text).join("");
}

function toolCalls(invocation) {
  if (!invocation) return [];
  const data = invocation.intermediate_data || {};
  if (Array.isArray(data.tool_uses)) return data.tool_uses.map(t => ({name: t.name, args: t.args || {}}));
  const calls = [];
  for (const event of data.invocation_events || []) {
    for (const part of ((event || {}).content || {}).parts || []) {
      if (part && part.function_call) calls.push({name: part.function_call.name, args: part.function_call.args || {}});
    }
  }
  return calls;
}

function turns(records) {
  if (!records.length) return el("p", {class: "muted"}, "No turns recorded.");
  return el("div", {class: "turns"}, records.map((record, i) => turn(record, i)));
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
    el("div", {class: "user"}, el("span", {class: "who"}, "User"), el("p", {class: "pre"}, user || "(no text)")),
    el("div", {class: "sides"},
      expected ? el("div", {class: "side expected"}, el("h4", {}, "Expected"),
        callList(expCalls, marks.expected), el("div", {class: "response pre"}, expected.final_response ? expWords : el("span", {class: "muted"}, "(no response expected)"))) : null,
      el("div", {class: "side actual"}, el("h4", {}, expected ? "Actual" : "Agent"),
        actual ? [callList(actCalls, marks.actual), el("div", {class: "response pre"}, expected ? actWords : actText || el("span", {class: "muted"}, "(no response)"))]
               : el("p", {class: "muted"}, "(the agent gave no turn)"))));
}

function callList(calls, marks) {
  if (!calls.length) return el("p", {class: "muted small"}, "no tool calls");
  return el("ol", {class: "calls"}, calls.map((call, i) => {
    const mark = marks[i] || {};
    return el("li", {class: mark.call ? "diff-call" : ""}, el("code", {}, call.name, "("),
      Object.entries(call.args || {}).map(([key, v], j) => [j ? el("code", {}, ", ") : null,
        el("code", {class: (mark.args || []).includes(key) ? "diff-arg" : ""}, `${key}=${JSON.stringify(v)}`)]),
      el("code", {}, ")"));
  }));
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

