// Two runs side by side: what regressed, improved, was added or removed, and one case in both.
// A classic script (templates/index.html loads them in order): its names are shared with the others.
"use strict";

// ---- two runs -------------------------------------------------------------------------------------

async function comparePicker() {
  const data = await api.runs();
  const finished = data.runs.filter(r => !r.live);
  const option = r => el("option", {value: r.id}, `${fmtWhen(r.started_at)} · ${(r.eval_set_ids || []).join(", ")} · ${r.agent || ""}`);
  const base = el("select", {id: "pick-base", "aria-label": "base run"}, finished.map(option));
  const next = el("select", {id: "pick-new", "aria-label": "new run"}, finished.map(option));
  if (finished.length > 1) base.value = finished[1].id;
  return el("div", {},
    el("h1", {}, "Compare two runs"),
    finished.length < 2 ? el("p", {}, "Two finished runs are needed to compare; there ", finished.length === 1 ? "is one." : "are none.") :
    el("div", {class: "filters"}, el("label", {}, "Base (earlier) ", base), el("label", {}, "New ", next),
      el("button", {type: "button", id: "pick-go", on: {click: () => { location.hash = route("compare", base.value, next.value); }}}, "Compare")));
}

const KIND_LABEL = {regressed: "Regressed", improved: "Improved", changed: "Changed", added: "Added", removed: "Removed", unchanged: "Unchanged"};

async function comparePage(baseId, newId) {
  let comparison;
  try { comparison = await api.compare(baseId, newId); }
  catch (error) {
    if (MODE === "static" && error instanceof NotFound) return el("div", {class: "notice"}, el("h1", {}, "Not in this export"),
      el("p", {}, "An export holds each run compared with the run before it. To compare any two runs, open the result files with evalkit view."));
    throw error;
  }
  const runs = (await api.runs()).runs;
  const find = id => runs.find(r => r.id === id) || {};
  const summary = comparison.summary || {};
  const significance = comparison.cases.some(c => c.p_value !== undefined);
  const sections = ["regressed", "improved", "changed", "added", "removed", "unchanged"].map(kind => {
    const cases = comparison.cases.filter(c => c.kind === kind);
    if (!cases.length) return null;
    return el("section", {class: `kind k-${kind}`},
      el(kind === "unchanged" ? "details" : "div", {}, el(kind === "unchanged" ? "summary" : "h2", {}, `${KIND_LABEL[kind]} (${cases.length})`),
      tableWrap(el("table", {class: "compare"},
        el("thead", {}, el("tr", {}, el("th", {}, "Case"), el("th", {}, "Status"), el("th", {}, "Criteria (base → new)"), significance ? el("th", {}, "p") : null)),
        el("tbody", {}, cases.map(c => el("tr", {},
          el("td", {}, kind === "added" || kind === "removed" ? `${c.eval_set_id}/${c.eval_id}` :
            el("a", {href: route("compare", baseId, newId, "case", c.eval_set_id, c.eval_id)}, `${c.eval_set_id}/${c.eval_id}`)),
          el("td", {}, c.base_status === c.new_status ? badge(c.new_status) : [badge(c.base_status), " → ", badge(c.new_status)]),
          el("td", {}, (c.criteria || []).filter(x => x.kind !== "unchanged" || kind === "unchanged").map(x => el("div", {class: `k-${x.kind}`},
            `${x.name}: ${fmtScore(x.base_score)} → ${fmtScore(x.new_score)}`,
            x.base_status !== x.new_status ? ` (${x.base_status || "absent"} → ${x.new_status || "absent"})` : ""))),
          significance ? el("td", {class: "num"}, c.p_value == null ? "" : fmtScore(c.p_value)) : null)))))));
  });
  return el("div", {},
    el("p", {class: "crumbs"}, el("a", {href: "#/"}, "Runs"), " › compare"),
    el("h1", {}, "What changed"),
    el("div", {class: "sides two-runs"},
      el("div", {}, el("h4", {}, "Base"), el("a", {href: route("run", baseId)}, fmtWhen(find(baseId).started_at)), " ", el("span", {class: "muted"}, find(baseId).agent || "")),
      el("div", {}, el("h4", {}, "New"), el("a", {href: route("run", newId)}, fmtWhen(find(newId).started_at)), " ", el("span", {class: "muted"}, find(newId).agent || ""))),
    el("ul", {class: "kind-counts"}, Object.keys(KIND_LABEL).map(kind => el("li", {class: `k-${kind}`}, el("strong", {}, String(summary[kind] || 0)), ` ${kind}`))),
    comparison.overall ? el("div", {class: "overall"}, el("h2", {}, "Overall test"), value(comparison.overall)) : null,
    sections);
}

async function compareCasePage(baseId, newId, setId, evalId) {
  const [baseIndex, newIndex] = await Promise.all([api.locate(baseId, setId, evalId).catch(() => null), api.locate(newId, setId, evalId).catch(() => null)]);
  const [base, next] = await Promise.all([baseIndex == null ? null : api.case(baseId, baseIndex), newIndex == null ? null : api.case(newId, newIndex)]);
  const side = (title, runId, index, data, other) => el("div", {class: "side"},
    el("h2", {}, title, " ", data ? badge(data.case.status) : null),
    data ? [el("p", {}, el("a", {href: route("run", runId, "case", index)}, "open this case in its run")),
      el("ul", {class: "crit-list"}, (data.case.criteria || []).filter(x => x.status !== "informational").map(x => el("li", {}, `${x.name}: ${fmtScore(x.score)} `, badge(x.status)))),
      (data.case.invocations || []).map((record, i) => compareTurn(record, i, other ? (other.case.invocations || [])[i] : null))]
      : el("p", {class: "muted"}, "Not in this run."));
  return el("div", {},
    el("p", {class: "crumbs"}, el("a", {href: "#/"}, "Runs"), " › ", el("a", {href: route("compare", baseId, newId)}, "compare"), " › case"),
    el("h1", {}, `${setId}/${evalId}: base and new`),
    el("p", {class: "muted"}, "Each run's turns; in the new run, words and tool calls that differ from the base run are marked."),
    el("div", {class: "sides two-runs"}, side("Base", baseId, baseIndex, base, null), side("New", newId, newIndex, next, base)));
}

function compareTurn(record, i, otherRecord) {
  const actual = record.actual || {};
  const calls = toolCalls(actual);
  const text = textOf(actual.final_response);
  let callsNode = callList(calls, []), textNode = text;
  if (otherRecord) {
    const otherActual = otherRecord.actual || {};
    callsNode = callList(calls, callMarks(toolCalls(otherActual), calls).actual);
    textNode = wordDiff(textOf(otherActual.final_response), text)[1];
  }
  return el("section", {class: "turn"}, el("h3", {}, `Turn ${i + 1}`),
    el("div", {class: "user"}, el("span", {class: "who"}, "User"), el("p", {class: "pre"}, textOf(actual.user_content || (record.expected || {}).user_content))),
    callsNode, el("div", {class: "response pre"}, textNode));
}
