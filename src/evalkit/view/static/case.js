// A case's page: why it failed, its criteria with their details and labels.
// A classic script (templates/index.html loads them in order): its names are shared with the others.
"use strict";

// ---- a case ----------------------------------------------------------------------------------

async function casePage(runId, index) {
  const data = await api.case(runId, index);
  const c = data.case;
  const judged = new Set(data.judged || []);
  const labelling = MODE !== "static" && !!(await labelsFile());
  const labelsOn = labelling && judged.size > 0;
  const page = el("div", {class: "case-page"});
  append(page, [
    el("p", {class: "crumbs"}, el("a", {href: "#/"}, "Runs"), " › ", el("a", {href: route("run", runId)}, "run"), " › case"),
    el("h1", {}, `${c.eval_set_id}/${c.eval_id} `, badge(c.status), c.quarantined ? el("span", {class: "tag"}, "quarantined") : null),
    data.live ? el("p", {class: "muted"}, "This run is still going: the case's turns and details appear here when it has finished.") : null,
    whyBox(c, data.reasons || {}),
    c.error_detail ? el("details", {class: "error-detail"}, el("summary", {}, "error_detail (traceback or the agent's last stderr lines)"), el("pre", {}, c.error_detail)) : null,
    facts(c, data.cassette),
    data.live ? null : historySection(c, runId),
    el("h2", {}, "Criteria"),
    labelling && !labelsOn ? el("p", {class: "muted", id: "no-judged"}, "No judge decided a criterion of this case, so there is no verdict to label here (labels measure judges: docs/criteria.md, \u201cTrusting a judge\u201d).") : null,
    criteriaTable(c, data.labels || {}, labelsOn, judged),
    el("h2", {}, "Turns"),
    turns(c.invocations || []),
    repeats(c),
    more(c)]);
  return page;
}

let labelsInfo = null;
async function labelsFile() {
  if (labelsInfo === null) labelsInfo = (await api.runs()).labels || "";
  return labelsInfo;
}

// The first thing a reader wants: which criteria failed, by how much, and what they said.
function whyBox(c, reasons) {
  const bad = (c.criteria || []).filter(x => x.status === "failed" || x.status === "error");
  if (!bad.length && !c.error && !c.reason) return null;
  return el("section", {class: `why s-${c.status}`, id: "why"},
    el("h2", {}, c.status === "error" ? "Why it errored" : c.status === "not_evaluated" ? "Why it was not evaluated" : "Why it failed"),
    c.error ? el("p", {class: "pre"}, c.error) : null,
    c.reason ? el("p", {}, c.reason) : null,
    el("ul", {}, bad.map(x => el("li", {},
      el("strong", {}, x.name), ` scored ${fmtScore(x.score)}`, x.threshold != null ? `, below its threshold ${fmtScore(x.threshold)}` : "",
      x.error ? [": ", x.error] : null,
      el("ul", {}, (x.invocations || []).map((inv, i) => turnFailed(inv) && explain(inv.details) ? el("li", {}, `turn ${i + 1}: `, explain(inv.details)) : null),
        explain(x.details) ? el("li", {}, explain(x.details)) : null,
        judgeSaid(reasons[x.name] || [], x)),
      checksFailed(x)))));
}

// The judge's own reasons for its verdict (view/rows.py picks them out of its replies).
function judgeSaid(reasons, x) {
  const explained = new Set((x.invocations || []).map((inv, i) => explain(inv.details) ? i + 1 : null).filter(Boolean));
  return reasons.filter(r => !explained.has(r.turn)).map(r => el("li", {class: "judge-said"},
    r.turn ? `turn ${r.turn}: ` : "", el("span", {class: "judge-label"}, "the judge said "), el("q", {}, r.text)));
}

// Deterministic checks (response_checks_v1): every one that failed, by name.
function checksFailed(x) {
  const lines = [];
  (x.invocations || []).forEach((inv, i) => ((inv.details || {}).failed_checks || []).forEach(check => lines.push(`turn ${i + 1}: ${check}`)));
  ((x.details || {}).failed_checks || []).forEach(check => lines.push(check));
  return lines.length ? el("ul", {class: "failed-checks"}, lines.map(line => el("li", {}, line))) : null;
}

// A one-line account of a criterion's details: a difference, an expected/actual pair, a rationale.
function explain(details) {
  if (!details || typeof details !== "object") return null;
  for (const key of ["difference", "explanation", "closest", "rationale", "reason", "error"]) {
    if (typeof details[key] === "string" && details[key]) return details[key];
  }
  if (typeof details.expected === "string" && typeof details.actual === "string") {
    return el("span", {}, "expected ", el("q", {}, details.expected), ", got ", el("q", {}, details.actual));
  }
  return null;
}

function facts(c, cassette) {
  const cassetteText = cassette ? `${cassette.path} (${cassette.mode}${cassette.exists ? "" : "; not on this machine"})` : null;
  const items = [["Source file", c.source_file], ["Cassette", cassetteText], ["Duration", fmtSeconds(c.duration_s)],
                 ["Session", c.session_id]].filter(([, v]) => v);
  return items.length ? el("dl", {class: "facts"}, items.map(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))])) : null;
}

function criteriaTable(c, labels, labelsOn, judged) {
  return tableWrap(el("table", {class: "criteria", id: "criteria"},
    el("thead", {}, el("tr", {}, el("th", {}, "Criterion"), el("th", {class: "num"}, "Score"), el("th", {class: "num"}, "Threshold"),
      el("th", {}, "Status"), el("th", {}, "Details"), labelsOn ? el("th", {}, "Your verdict") : null)),
    el("tbody", {}, (c.criteria || []).map(x => el("tr", {"data-criterion": x.name},
      el("td", {}, x.name),
      el("td", {class: "num"}, fmtScore(x.score)),
      el("td", {class: "num"}, x.threshold == null ? "" : fmtScore(x.threshold)),
      el("td", {}, badge(x.status)),
      el("td", {}, criterionDetails(x)),
      labelsOn ? el("td", {}, judged.has(x.name) ? labelControl(c, x, labels[x.name]) : null) : null)))));
}

function criterionDetails(x) {
  const parts = criterionParts(x);
  if (x.status !== "informational" || !parts.length) return parts;
  return el("details", {}, el("summary", {}, "details"), parts);  // figures, not verdicts: folded away
}

function criterionParts(x) {
  const parts = [];
  if (x.error) parts.push(el("p", {class: "pre"}, x.error));
  if (x.details && Object.keys(x.details).length) parts.push(value(x.details));
  const turnsWithDetails = (x.invocations || []).filter(inv => inv.details && Object.keys(inv.details).length);
  if (turnsWithDetails.length || (x.invocations || []).length > 1) {
    parts.push(el("details", {open: x.status === "failed" || x.status === "error"}, el("summary", {}, `per turn (${(x.invocations || []).length})`),
      el("ol", {}, (x.invocations || []).map(inv => el("li", {}, badge(inv.status), " ", fmtScore(inv.score), " ", inv.details && Object.keys(inv.details).length ? value(inv.details) : null)))));
  }
  if (x.spread) parts.push(el("p", {class: "muted small"}, `over ${x.spread.runs} runs: mean ${fmtScore(x.spread.mean)}, min ${fmtScore(x.spread.min)}, max ${fmtScore(x.spread.max)}, ${x.spread.passed} passed`));
  return parts;
}

// Only a judge's verdict can be labelled (judge calibration measures judges against people).
function labelControl(c, x, label) {
  if (x.status !== "passed" && x.status !== "failed") return null;  // informational, error: no verdict to judge
  const judged = x.status === "passed" ? "pass" : "fail";
  const shown = el("span", {class: "label-state"}, label ? `labelled ${label.verdict}` : "not labelled");
  const send = async right => {
    const verdict = right ? judged : (judged === "pass" ? "fail" : "pass");
    try {
      const saved = await api.saveLabel({eval_set_id: c.eval_set_id, eval_id: c.eval_id, criterion: x.name, verdict: verdict});
      shown.textContent = `labelled ${saved.verdict}`;
    } catch (error) { shown.textContent = `not saved: ${error.message}`; }
  };
  return el("div", {class: "label"},
    el("button", {type: "button", class: "label-right", title: `the ${judged} verdict is right`, on: {click: () => send(true)}}, "✓ right"),
    el("button", {type: "button", class: "label-wrong", title: `the ${judged} verdict is wrong`, on: {click: () => send(false)}}, "✗ wrong"),
    " ", shown);
}

// Any JSON value, generically: new keys from newer versions show up without changes here.
function value(v, depth) {
  depth = depth || 0;
  if (v === null || v === undefined) return el("span", {class: "muted"}, "null");
  if (typeof v !== "object") return el("span", {class: typeof v === "string" ? "pre str" : "num-inline"}, typeof v === "number" ? fmtScore(v) : String(v));
  if (depth > 6) return el("span", {class: "pre"}, JSON.stringify(v));
  if (Array.isArray(v)) {
    if (!v.length) return el("span", {class: "muted"}, "[]");
    return el("ol", {class: "kv-list", start: 0}, v.map(item => el("li", {}, value(item, depth + 1))));
  }
  const keys = Object.keys(v);
  if (!keys.length) return el("span", {class: "muted"}, "{}");
  return el("dl", {class: "kv"}, keys.map(key => [el("dt", {}, key), el("dd", {}, value(v[key], depth + 1))]));
}


// ---- the case across runs -------------------------------------------------------------------

// This case in every run of the history, newest first: newly broken, or flipping back and forth?
function historySection(c, runId) {
  const section = el("section", {class: "history", id: "history"}, el("h2", {}, "History"), el("p", {class: "muted"}, "Loading…"));
  api.history(c.eval_set_id, c.eval_id).then(data => {
    if (!data) { section.replaceChildren(el("h2", {}, "History"), el("p", {class: "muted"}, "A static copy shows each run on its own; evalkit view shows this case across runs.")); return; }
    section.replaceChildren(el("h2", {}, "History"), ...historyBody(data.runs, runId));
  }).catch(error => section.replaceChildren(el("h2", {}, "History"), el("p", {class: "muted"}, error instanceof NotFound ? "This case is in no other run of the history." : `Not loaded: ${error.message}`)));
  return section;
}

function historyBody(runs, runId) {
  const names = [...new Set(runs.flatMap(r => Object.keys(r.statuses || {}).filter(n => r.statuses[n] !== "informational")))];
  // "Newly broken", "flipped": said of this run's agent only; another agent's runs are not its past.
  const here = runs.find(r => r.id === runId);
  const own = here ? runs.filter(r => (r.agent || "") === (here.agent || "")) : runs;
  const notes = [flipNote("The case", own.map(r => r.status))];
  for (const name of names) notes.push(flipNote(name, own.map(r => (r.statuses || {})[name]).filter(Boolean)));
  const agents = new Set(runs.map(r => r.agent || ""));
  if (agents.size > 1) notes.push(`Runs of ${agents.size} agents; the notes above count only this run's agent.`);
  return [
    el("ul", {class: "history-notes"}, notes.filter(Boolean).map(note => el("li", {}, note))),
    tableWrap(el("table", {class: "history-runs"},
      el("thead", {}, el("tr", {}, el("th", {}, "Run"), el("th", {}, "Status"), el("th", {}, "Agent"), names.map(n => el("th", {class: "num"}, n)))),
      el("tbody", {}, runs.map(r => el("tr", {class: r.id === runId ? "this-run" : ""},
        el("td", {}, r.id === runId ? [whenParts(r.started_at), el("span", {class: "tag"}, "this run")] : el("a", {href: route("run", r.id, "case", r.index)}, whenParts(r.started_at))),
        el("td", {}, badge(r.status)),
        el("td", {class: "agent"}, r.agent || "—"),
        names.map(n => el("td", {class: `num s-${(r.statuses || {})[n] || "unknown"}`}, n in (r.scores || {}) ? fmtScore(r.scores[n]) : "—"))))))),
  ];
}

// "passed in 3 of 5 runs, flipped 2 times": said only when the verdict changed between runs.
function flipNote(what, statuses) {
  const verdicts = statuses.filter(s => s === "passed" || s === "failed" || s === "error");
  let flips = 0;
  for (let i = 1; i < verdicts.length; i++) if ((verdicts[i] === "passed") !== (verdicts[i - 1] === "passed")) flips++;
  const passed = verdicts.filter(s => s === "passed").length;
  if (verdicts.length < 2) return what === "The case" ? `${what} is in ${statuses.length} run${statuses.length === 1 ? "" : "s"} of the history.` : null;
  if (!flips) return what === "The case" ? `${what} ${passed ? "passed" : "did not pass"} in all ${verdicts.length} runs.` : null;
  const newly = verdicts[0] !== "passed" && verdicts.slice(1).every(s => s === "passed") ? " (newly broken: it passed in every earlier run)" : "";
  return `${what} passed in ${passed} of ${verdicts.length} runs and flipped ${flips} time${flips === 1 ? "" : "s"}${newly ? newly : ": flaky, or changed back and forth"}.`;
}

function turnFailed(inv) { return !inv.status || inv.status === "failed" || inv.status === "error"; }
