// A run's page: its cases, filtered, sorted and paged.
// A classic script (templates/index.html loads them in order): its names are shared with the others.
"use strict";

// ---- a run: its cases -----------------------------------------------------------------------

async function runPage(runId, params) {
  const page = el("div", {});
  const state = {
    status: params.get("status") || "", criterion: params.get("criterion") || "", q: params.get("q") || "",
    sort: params.get("sort") || "", desc: params.get("desc") || "", offset: Number(params.get("offset")) || 0,
  };
  const first = await api.cases(runId, queryString(state));
  if (first.moved_to) { location.replace(route("run", first.moved_to)); return el("p", {class: "muted"}, "The run has finished…"); }
  const header = el("div", {});
  const tableHolder = el("div", {});
  const statusSelect = el("select", {id: "filter-status", "aria-label": "status"},
    ["", "passed", "failed", "error", "not_evaluated"].map(s => el("option", {value: s}, s ? s.replace("_", " ") : "any status")));
  const criterionSelect = el("select", {id: "filter-criterion", "aria-label": "criterion"},
    el("option", {value: ""}, "the case"), (first.criteria || []).map(name => el("option", {value: name}, name)));
  const textInput = el("input", {id: "filter-text", type: "search", placeholder: "text in the case…", "aria-label": "text"});
  const sortSelect = el("select", {id: "sort", "aria-label": "sort"},
    el("option", {value: ""}, "file order"), el("option", {value: "status"}, "status"), el("option", {value: "duration"}, "duration"),
    el("option", {value: "criterion"}, "the criterion's score"));
  const descBox = el("input", {type: "checkbox", id: "sort-desc"});
  statusSelect.value = state.status; criterionSelect.value = state.criterion; textInput.value = state.q;
  sortSelect.value = state.sort; descBox.checked = !!state.desc;

  let latest = first;
  async function refresh(resetOffset) {
    if (resetOffset) state.offset = 0;
    Object.assign(state, {status: statusSelect.value, criterion: criterionSelect.value, q: textInput.value,
                          sort: sortSelect.value, desc: descBox.checked ? "1" : ""});
    history.replaceState(null, "", route("run", runId) + "?" + queryString(state, true));
    latest = await api.cases(runId, queryString(state));
    draw();
  }
  let typing = null;
  statusSelect.addEventListener("change", () => refresh(true));
  criterionSelect.addEventListener("change", () => refresh(true));
  sortSelect.addEventListener("change", () => refresh(true));
  descBox.addEventListener("change", () => refresh(true));
  textInput.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => refresh(true), 200); });

  function draw() {
    header.replaceChildren(runHeader(runId, latest.run));
    tableHolder.replaceChildren(casesTable(runId, latest, state, offset => { state.offset = offset; refresh(false); }));
  }
  draw();
  page.append(header, (await coverageSection(runId)) || "",  // "": no coverage (append would write null)
    el("div", {class: "filters"},
      el("label", {}, "Status ", statusSelect), el("label", {}, "of ", criterionSelect),
      el("label", {class: "grow"}, "Text ", textInput),
      el("label", {}, "Sort by ", sortSelect), el("label", {}, descBox, " descending")),
    tableHolder);
  // A run in progress, or a large file still being read, fills in as it grows.
  const growing = () => (latest.run && latest.run.live && !latest.run.stopped) || latest.complete === false;
  if (growing()) {
    startPolling(async () => {
      const fresh = await api.cases(runId, queryString(state));
      if (fresh.moved_to) { stopPolling(); location.replace(route("run", fresh.moved_to)); return; }
      latest = fresh;
      draw();
      if (!growing()) stopPolling();
    }, latest.complete === false ? 0.3 : 1);
  }
  return page;
}

function queryString(state, forHash) {
  const query = new URLSearchParams();
  for (const key of ["status", "criterion", "q", "sort", "desc"]) if (state[key]) query.set(key, state[key]);
  if (state.offset) query.set("offset", state.offset);
  if (!forHash) query.set("limit", PAGE_SIZE);
  return query.toString();
}

function runHeader(runId, run) {
  run = run || {};
  const summary = run.summary || {};
  const facts = [
    ["Started", fmtWhen(run.started_at)], ["Eval sets", (run.eval_set_ids || []).join(", ")], ["Agent", run.agent],
    ["Duration", fmtSeconds(run.duration_s)], ["Cost", fmtCost(summary.cost)], ["Git", gitText(run.git)],
    ["Repeat", run.repeat > 1 ? `${run.repeat} runs per case` : null], ["Planned", summary.planned],
    ["Shard", run.shard], ["File", run.file],
  ].filter(([, value]) => value !== null && value !== undefined && value !== "");
  return el("div", {class: "run-head"},
    el("p", {class: "crumbs"}, el("a", {href: "#/"}, "Runs"), " › ", "run"),
    el("h1", {}, `Run of ${fmtWhen(run.started_at)}`,
      run.live ? el("span", {class: "tag live"}, run.stopped ? "stopped" : `running: ${summary.cases} of ${run.total || "?"} cases`) : null,
      run.interrupted ? el("span", {class: "tag warn"}, "interrupted") : null),
    el("p", {}, counts(summary), ` of ${summary.cases || 0} cases`, verdictTag(run.verdict)),
    verdictReasons(run.verdict),
    el("dl", {class: "facts"}, facts.map(([key, value]) => [el("dt", {}, key), el("dd", {}, String(value))])),
    run.baseline ? baselineRuns(run.baseline) : null);
}

// `--baseline history`: the earlier runs pooled as this run's baseline, each a link to its page.
function baselineRuns(baseline) {
  const runs = baseline.runs || [];
  return el("p", {class: "baseline-runs"}, `Compared with ${baseline.base}: `,
    runs.flatMap((id, i) => [i ? ", " : "", el("a", {href: route("run", id)}, id)]));
}

function casesTable(runId, page, state, goTo) {
  const names = state.criterion ? [state.criterion] : [...new Set(page.cases.flatMap(r => Object.keys(r.criteria)))];
  const body = page.cases.map(row => el("tr", {},
    el("td", {}, el("a", {href: route("run", runId, "case", row.index)}, `${row.eval_set_id}/${row.eval_id}`),
      row.quarantined ? el("span", {class: "tag"}, "quarantined") : null),
    el("td", {}, badge(row.status), row.stability ? el("span", {class: "tag"}, row.stability.replace("_", " ")) : null,
      typeof row.pass_rate === "number" ? el("span", {class: "muted small"}, ` ${Math.round(row.pass_rate * 100)}% of runs`) : null),
    names.map(name => {
      const c = row.criteria[name];
      if (!c) return el("td", {class: "num muted"}, "—");
      return el("td", {class: `num s-${c.status}`, title: `${name}: ${c.status}`}, fmtScore(c.score), c.threshold != null ? el("span", {class: "muted"}, ` / ${fmtScore(c.threshold)}`) : null);
    }),
    el("td", {class: "num"}, fmtSeconds(row.duration_s)),
    el("td", {class: "error-cell"}, row.error || "")));
  const end = page.offset + page.cases.length;
  const pager = el("div", {class: "pager"},
    el("button", {type: "button", id: "page-prev", disabled: page.offset <= 0, on: {click: () => goTo(Math.max(0, page.offset - PAGE_SIZE))}}, "‹ Previous"),
    el("span", {id: "page-info"}, page.matched ? `${page.offset + 1}–${end} of ${page.matched} matching cases` : "No case matches",
      page.matched !== page.total ? ` (${page.total} in the run)` : "", page.complete === false ? " (still reading the file…)" : ""),
    el("button", {type: "button", id: "page-next", disabled: end >= page.matched, on: {click: () => goTo(page.offset + PAGE_SIZE)}}, "Next ›"));
  return el("div", {}, pager, tableWrap(el("table", {class: "cases", id: "cases"},
    el("thead", {}, el("tr", {}, el("th", {}, "Case"), el("th", {}, "Status"), names.map(n => el("th", {class: "num"}, n)),
      el("th", {class: "num"}, "Duration"), el("th", {}, "Error"))),
    el("tbody", {}, body))));
}

