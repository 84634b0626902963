// evalkit view: every page is drawn here from the JSON API (docs/viewer.md).
// Result files hold untrusted text (agents, judges, eval sets wrote it): it only ever
// becomes text nodes (el() below), never markup; links are built from ids, never taken
// from the data.
"use strict";

const MODE = document.body.dataset.mode;  // "server", or "static" for an export
const PAGE_SIZE = Number(document.body.dataset.pageSize) || 100;
const STATUS_ORDER = {error: 0, failed: 1, not_evaluated: 2, passed: 3};
const COLORS = ["#1b6ac9", "#c2410c", "#15803d", "#7c3aed", "#b91c1c", "#0e7490", "#a16207", "#be185d"];
let pollTimer = null;
let renderToken = 0;

// ---- DOM, text only -------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "on") { for (const [event, fn] of Object.entries(value)) node.addEventListener(event, fn); }
    else if (key === "href") node.setAttribute("href", safeHref(value));
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

function safeHref(href) {
  return String(href).startsWith("#") ? href : "#/";  // only this page's own routes
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function route(...parts) { return "#/" + parts.map(p => encodeURIComponent(p)).join("/"); }

// ---- data: the server's API, or an export's files ---------------------------------------

const cache = new Map();

async function getJson(url) {
  const response = await fetch(url, {headers: {"Accept": "application/json"}});
  if (response.status === 404) throw new NotFound(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

class NotFound extends Error {}

const api = {
  runs() { return MODE === "static" ? getJson("data/runs.json") : getJson("api/runs"); },
  async cases(runId, params) {
    if (MODE !== "static") return getJson(`api/runs/${encodeURIComponent(runId)}/cases?${params}`);
    const rows = await staticRows(runId);
    return {...queryRows(rows.rows, rows.texts, new URLSearchParams(params)), run: rows.run, criteria: rows.criteria};
  },
  case(runId, index) {
    const id = encodeURIComponent(runId);
    return MODE === "static" ? getJson(`data/runs/${id}/cases/${index}.json`) : getJson(`api/runs/${id}/cases/${index}`);
  },
  async locate(runId, setId, evalId) {
    if (MODE !== "static") {
      const query = new URLSearchParams({eval_set_id: setId, eval_id: evalId});
      return (await getJson(`api/runs/${encodeURIComponent(runId)}/locate?${query}`)).index;
    }
    const rows = (await staticRows(runId)).rows;
    const exact = rows.find(r => r.eval_set_id === setId && r.eval_id === evalId);
    if (exact) return exact.index;
    const byId = rows.filter(r => r.eval_id === evalId);
    if (byId.length === 1) return byId[0].index;
    throw new NotFound(evalId);
  },
  compare(base, next) {
    if (MODE === "static") return getJson(`data/compare/${encodeURIComponent(base)}/${encodeURIComponent(next)}.json`);
    return getJson(`api/compare?${new URLSearchParams({base: base, new: next})}`);
  },
  async saveLabel(label) {
    const response = await fetch("api/labels", {method: "POST", headers: {"Content-Type": "application/json"},
                                                body: JSON.stringify(label)});
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body.label;
  },
};

async function staticRows(runId) {
  if (!cache.has(runId)) cache.set(runId, getJson(`data/runs/${encodeURIComponent(runId)}/rows.json`));
  return cache.get(runId);
}

// The server's filter, sort and paging rules (view/query.py), for an export.
function queryRows(rows, texts, params) {
  const status = params.get("status") || "", criterion = params.get("criterion") || "";
  const text = (params.get("q") || "").trim().toLowerCase(), sort = params.get("sort") || "";
  const offset = Math.max(0, Number(params.get("offset")) || 0);
  const limit = Math.min(500, Math.max(1, Number(params.get("limit")) || PAGE_SIZE));
  let chosen = rows.filter((row, i) => {
    if (criterion) {
      const c = row.criteria[criterion];
      if (!c || (status && c.status !== status)) return false;
    } else if (status && row.status !== status) return false;
    return !text || texts[i].includes(text);
  });
  if (sort) {
    const key = row => {
      if (sort === "status") return [STATUS_ORDER[row.status] ?? 9, row.index];
      if (sort === "duration") return [row.duration_s == null ? 1 : 0, row.duration_s || 0, row.index];
      if (sort === "criterion" && criterion) {
        const score = (row.criteria[criterion] || {}).score;
        return [score == null ? 1 : 0, typeof score === "number" ? score : 0, row.index];
      }
      return [row.index];
    };
    chosen = chosen.map(row => [key(row), row]).sort((a, b) => compareKeys(a[0], b[0])).map(pair => pair[1]);
    if (["1", "true"].includes(params.get("desc"))) chosen.reverse();
  }
  return {total: rows.length, matched: chosen.length, offset: offset, cases: chosen.slice(offset, offset + limit)};
}

function compareKeys(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

// ---- routing ------------------------------------------------------------------------------

window.addEventListener("hashchange", render);
window.addEventListener("DOMContentLoaded", render);

async function render() {
  const token = ++renderToken;
  stopPolling();
  const [path, query] = (location.hash.replace(/^#\/?/, "") || "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query || "");
  const main = document.getElementById("main");
  try {
    let view;
    if (parts.length === 0) view = await runsPage();
    else if (parts[0] === "run" && parts.length === 2) view = await runPage(parts[1], params);
    else if (parts[0] === "run" && parts[2] === "case" && parts.length === 4) view = await casePage(parts[1], Number(parts[3]));
    else if (parts[0] === "compare" && parts.length === 1) view = await comparePicker();
    else if (parts[0] === "compare" && parts.length === 3) view = await comparePage(parts[1], parts[2]);
    else if (parts[0] === "compare" && parts[3] === "case" && parts.length === 6) view = await compareCasePage(parts[1], parts[2], parts[4], parts[5]);
    else throw new NotFound(location.hash);
    if (token !== renderToken) return;
    main.replaceChildren(view);
    window.scrollTo(0, 0);
  } catch (error) {
    if (token !== renderToken) return;
    main.replaceChildren(error instanceof NotFound
      ? el("div", {class: "notice"}, el("h1", {}, "Not found"), el("p", {}, "This viewer has no such run or case. "), el("a", {href: "#/"}, "Back to the runs"))
      : el("div", {class: "notice error"}, el("h1", {}, "Something went wrong"), el("pre", {}, String(error && error.stack || error))));
  }
}

function startPolling(fn, seconds) {
  stopPolling();
  pollTimer = setInterval(fn, Math.max(250, (seconds || 1) * 1000));
}

function stopPolling() { if (pollTimer) clearInterval(pollTimer); pollTimer = null; }

// ---- formatting ---------------------------------------------------------------------------

function fmtScore(value) {
  if (value === null || value === undefined) return "n/a";
  if (typeof value !== "number") return String(value);
  return Number.isInteger(value) ? String(value) : value.toFixed(3);
}

function fmtWhen(text) {
  if (!text) return "";
  const date = new Date(text);
  return isNaN(date) ? String(text) : date.toLocaleString(undefined, {dateStyle: "medium", timeStyle: "medium"});
}

function fmtSeconds(value) {
  if (typeof value !== "number") return "";
  return value < 1 ? `${Math.round(value * 1000)} ms` : value < 120 ? `${value.toFixed(2)} s` : `${(value / 60).toFixed(1)} min`;
}

function fmtCost(value) { return typeof value === "number" ? value.toPrecision(3) : ""; }

function badge(status) { return el("span", {class: `badge s-${status || "unknown"}`}, String(status || "—").replace("_", " ")); }

function counts(summary) {
  summary = summary || {};
  return el("span", {class: "counts"},
    el("span", {class: "c-passed", title: "passed"}, `${summary.passed || 0} passed`), " ",
    el("span", {class: "c-failed", title: "failed"}, `${summary.failed || 0} failed`), " ",
    el("span", {class: "c-error", title: "errors"}, `${summary.errors || 0} errors`),
    summary.not_evaluated ? [" ", el("span", {class: "c-ne"}, `${summary.not_evaluated} not evaluated`)] : null);
}

function gitText(git) {
  if (!git || !git.commit) return "";
  return `${git.branch || "detached"} @ ${String(git.commit).slice(0, 8)}`;
}

function tableWrap(table) { return el("div", {class: "table-wrap"}, table); }

// ---- the runs page ------------------------------------------------------------------------

async function runsPage() {
  const data = await api.runs();
  const page = el("div", {});
  drawRuns(page, data);
  if (MODE !== "static") {
    startPolling(async () => {
      const fresh = await api.runs();
      if (JSON.stringify(fresh.runs) !== JSON.stringify(data.runs)) { data.runs = fresh.runs; drawRuns(page, fresh); }
    }, data.poll_s);
  }
  return page;
}

function drawRuns(page, data) {
  const runs = data.runs;
  setLiveIndicator(runs.filter(r => r.live && !r.stopped).length);
  if (!runs.length) {
    page.replaceChildren(el("div", {class: "notice"},
      el("h1", {}, "No runs yet"),
      el("p", {}, "Looked for result files in: ", (data.looked_in || []).join(", ") || "(nothing given)"),
      el("p", {}, "Make a run, then reload this page: every evalkit run is kept in .evalkit/runs/ of the folder it ran in."),
      el("pre", {}, "evalkit run evalsets/ --agent SPEC\nevalkit view                     # from the same folder\nevalkit view result.json         # or name result files and folders")));
    return;
  }
  const finished = runs.filter(r => !r.live);
  const selected = new Set();
  const compareButton = el("button", {type: "button", disabled: true, id: "compare-selected"}, "Compare the two selected runs");
  compareButton.addEventListener("click", () => {
    const [a, b] = [...selected].map(id => finished.find(r => r.id === id)).sort((x, y) => String(x.started_at).localeCompare(String(y.started_at)));
    location.hash = route("compare", a.id, b.id);
  });
  const rows = runs.map(run => {
    const previous = run.live ? null : previousRun(finished, run);
    const box = run.live ? "" : el("input", {type: "checkbox", "aria-label": `select run ${run.id} to compare`, on: {change: event => {
      if (event.target.checked) selected.add(run.id); else selected.delete(run.id);
      compareButton.disabled = selected.size !== 2;
    }}});
    return el("tr", {class: run.live ? "live-row" : ""},
      el("td", {}, box),
      el("td", {}, el("a", {href: route("run", run.id)}, fmtWhen(run.started_at)),
        run.live ? el("span", {class: "tag live"}, run.stopped ? "stopped" : "running") : null,
        run.interrupted ? el("span", {class: "tag warn"}, "interrupted") : null),
      el("td", {}, (run.eval_set_ids || []).join(", ")),
      el("td", {class: "agent wide-only"}, run.agent || ""),
      el("td", {}, run.live ? [counts(run.summary), " ", el("span", {class: "muted"}, `${run.summary.cases} of ${run.total || "?"} cases`)] : counts(run.summary)),
      el("td", {class: "num wide-only"}, fmtCost((run.summary || {}).cost)),
      el("td", {class: "num wide-only"}, fmtSeconds(run.duration_s)),
      el("td", {class: "git wide-only"}, gitText(run.git)),
      el("td", {}, previous ? el("a", {href: route("compare", previous.id, run.id), title: "what changed since the run before it"}, "changes since previous") : ""));
  });
  page.replaceChildren(
    el("h1", {}, `Runs (${runs.length})`),
    el("p", {class: "muted"}, "Newest first, from ", (data.looked_in || []).join(", "), ". Click a run to see its cases; pick two to compare them, or follow \u201cchanges since previous\u201d."),
    trends(finished),
    el("div", {class: "toolbar"}, compareButton),
    tableWrap(el("table", {class: "runs"},
      el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "When"), el("th", {}, "Eval sets"), el("th", {class: "wide-only"}, "Agent"),
        el("th", {}, "Cases"), el("th", {class: "wide-only"}, "Cost"), el("th", {class: "wide-only"}, "Duration"), el("th", {class: "wide-only"}, "Git"), el("th", {}, ""))),
      el("tbody", {}, rows))));
}

function previousRun(finished, run) {
  const sets = (run.eval_set_ids || []).join("\n");
  const index = finished.indexOf(run);
  return finished.slice(index + 1).find(r => (r.eval_set_ids || []).join("\n") === sets) || null;
}

function setLiveIndicator(count) {
  const node = document.getElementById("live");
  node.hidden = !count;
  node.textContent = count ? `${count} run${count > 1 ? "s" : ""} in progress` : "";
}

// One plot per eval set: its pass rate and each criterion's mean, run after run.
function trends(finished) {
  const bySet = new Map();
  for (const run of [...finished].reverse()) {
    for (const [setId, figure] of Object.entries(run.sets || {})) {
      if (!bySet.has(setId)) bySet.set(setId, []);
      bySet.get(setId).push({run: run, figure: figure});
    }
  }
  const plots = [...bySet.entries()].filter(([, points]) => points.length > 1).map(([setId, points]) => trendPlot(setId, points));
  if (!plots.length) return null;
  return el("section", {class: "trends"}, el("h2", {}, "Trends"), el("div", {class: "plots"}, plots));
}

function trendPlot(setId, points) {
  const series = [{name: "pass rate", values: points.map(p => p.figure.pass_rate)}];
  const names = [...new Set(points.flatMap(p => Object.keys(p.figure.criteria || {})))];
  const offScale = [];
  for (const name of names) {
    const values = points.map(p => (p.figure.criteria || {})[name]);
    if (values.every(v => v == null || (v >= 0 && v <= 1))) series.push({name: name, values: values});
    else offScale.push(name);
  }
  const width = 520, height = 200, left = 36, right = 10, top = 10, bottom = 24;
  const x = i => left + (points.length === 1 ? 0 : i * (width - left - right) / (points.length - 1));
  const y = v => top + (1 - v) * (height - top - bottom);
  const plot = svg("svg", {viewBox: `0 0 ${width} ${height}`, class: "trend", role: "img", "aria-label": `trend of ${setId}`});
  for (const tick of [0, 0.5, 1]) {
    plot.appendChild(svg("line", {x1: left, x2: width - right, y1: y(tick), y2: y(tick), class: "grid"}));
    plot.appendChild(svg("text", {x: left - 6, y: y(tick) + 4, class: "axis", "text-anchor": "end"}, String(tick)));
  }
  series.forEach((serie, s) => {
    const color = COLORS[s % COLORS.length];
    const coords = serie.values.map((v, i) => v == null ? null : [x(i), y(v)]).filter(Boolean);
    if (coords.length > 1) plot.appendChild(svg("polyline", {points: coords.map(c => c.join(",")).join(" "), fill: "none", stroke: color, "stroke-width": s === 0 ? 5 : 1.5, "stroke-opacity": s === 0 ? 0.45 : 1}));
    serie.values.forEach((v, i) => {
      if (v == null) return;
      const run = points[i].run;
      const link = svg("a", {href: route("run", run.id), class: "point"},
        svg("circle", {cx: x(i), cy: y(v), r: s === 0 ? 5 : 3.5, fill: color},
          svg("title", {}, `${serie.name}: ${fmtScore(v)} (${fmtWhen(run.started_at)}${run.git ? ", " + gitText(run.git) : ""})`)));
      plot.appendChild(link);
    });
  });
  points.forEach((p, i) => plot.appendChild(svg("text", {x: x(i), y: height - 6, class: "axis", "text-anchor": "middle"}, String(i + 1))));
  const legend = el("ul", {class: "legend"}, series.map((serie, s) =>
    el("li", {}, el("span", {class: "swatch", style: null, "data-color": s % COLORS.length}), serie.name)));
  return el("figure", {class: "plot"}, el("figcaption", {}, `${setId}: ${points.length} runs, oldest to newest (click a point to open its run)`),
    plot, legend, offScale.length ? el("p", {class: "muted small"}, `Not on the 0–1 scale, so not drawn: ${offScale.join(", ")}`) : null);
}

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
  page.append(header,
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
    el("p", {}, counts(summary), ` of ${summary.cases || 0} cases`),
    el("dl", {class: "facts"}, facts.map(([key, value]) => [el("dt", {}, key), el("dd", {}, String(value))])));
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

// ---- a case ----------------------------------------------------------------------------------

async function casePage(runId, index) {
  const data = await api.case(runId, index);
  const labelsOn = MODE !== "static" && !!(await labelsFile());
  const c = data.case;
  const page = el("div", {class: "case-page"});
  append(page, [
    el("p", {class: "crumbs"}, el("a", {href: "#/"}, "Runs"), " › ", el("a", {href: route("run", runId)}, "run"), " › case"),
    el("h1", {}, `${c.eval_set_id}/${c.eval_id} `, badge(c.status), c.quarantined ? el("span", {class: "tag"}, "quarantined") : null),
    data.live ? el("p", {class: "muted"}, "This run is still going: the case's turns and details appear here when it has finished.") : null,
    whyBox(c),
    c.error_detail ? el("details", {class: "error-detail"}, el("summary", {}, "error_detail (traceback or the agent's last stderr lines)"), el("pre", {}, c.error_detail)) : null,
    facts(c, data.cassette),
    el("h2", {}, "Criteria"),
    criteriaTable(c, data.labels || {}, labelsOn),
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
function whyBox(c) {
  const bad = (c.criteria || []).filter(x => x.status === "failed" || x.status === "error");
  if (!bad.length && !c.error && !c.reason) return null;
  return el("section", {class: `why s-${c.status}`, id: "why"},
    el("h2", {}, c.status === "error" ? "Why it errored" : c.status === "not_evaluated" ? "Why it was not evaluated" : "Why it failed"),
    c.error ? el("p", {class: "pre"}, c.error) : null,
    c.reason ? el("p", {}, c.reason) : null,
    el("ul", {}, bad.map(x => el("li", {},
      el("strong", {}, x.name), ` scored ${fmtScore(x.score)}`, x.threshold != null ? `, below its threshold ${fmtScore(x.threshold)}` : "",
      x.error ? [": ", x.error] : null,
      el("ul", {}, (x.invocations || []).map((inv, i) => explain(inv.details) ? el("li", {}, `turn ${i + 1}: `, explain(inv.details)) : null),
        explain(x.details) ? el("li", {}, explain(x.details)) : null)))));
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

function criteriaTable(c, labels, labelsOn) {
  return tableWrap(el("table", {class: "criteria", id: "criteria"},
    el("thead", {}, el("tr", {}, el("th", {}, "Criterion"), el("th", {class: "num"}, "Score"), el("th", {class: "num"}, "Threshold"),
      el("th", {}, "Status"), el("th", {}, "Details"), labelsOn ? el("th", {}, "Your verdict") : null)),
    el("tbody", {}, (c.criteria || []).map(x => el("tr", {"data-criterion": x.name},
      el("td", {}, x.name),
      el("td", {class: "num"}, fmtScore(x.score)),
      el("td", {class: "num"}, x.threshold == null ? "" : fmtScore(x.threshold)),
      el("td", {}, badge(x.status)),
      el("td", {}, criterionDetails(x)),
      labelsOn ? el("td", {}, labelControl(c, x, labels[x.name])) : null)))));
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
