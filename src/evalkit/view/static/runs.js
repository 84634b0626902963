// The runs page: every run, newest first, with a trend plot per eval set.
// A classic script (templates/index.html loads them in order): its names are shared with the others.
"use strict";

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
  return el("div", {}, page, await historyCoverageSection());
}

function drawRuns(page, data) {
  const runs = data.runs;
  setLiveIndicator(runs.filter(r => r.live && !r.stopped).length);
  if (!runs.length) {
    page.replaceChildren(el("div", {class: "notice"},
      el("h1", {}, "No runs yet"),
      el("p", {}, "Looked for result files in: ", (data.looked_in || []).join(", ") || "(nothing given)"),
      skippedFiles(data.skipped),
      el("p", {}, "Make a run, then reload this page: every evalkit run is kept in .evalkit/runs/ of the folder it ran in."),
      el("pre", {}, "evalkit run evalsets/ --agent SPEC\nevalkit view                     # from the same folder\nevalkit view result.json         # or name result files and folders")));
    return;
  }
  const finished = runs.filter(r => !r.live);
  const selected = new Set();
  const compareButton = el("button", {type: "button", disabled: true, id: "compare-selected"}, "Compare the two selected runs");
  compareButton.addEventListener("click", () => {
    // The older first, as the list orders them (newest first; two runs started within a second by their stamps).
    const [a, b] = [...selected].map(id => finished.find(r => r.id === id)).sort((x, y) => finished.indexOf(y) - finished.indexOf(x));
    location.hash = route("compare", a.id, b.id);
  });
  const whole = finished.filter(r => r.complete !== false);  // a large file still being read joins when read
  const rows = runs.map(run => {
    const previous = run.live || run.complete === false ? null : previousRun(whole, run);
    const box = run.live ? "" : el("input", {type: "checkbox", "aria-label": `select run ${run.id} to compare`, on: {change: event => {
      if (event.target.checked) selected.add(run.id); else selected.delete(run.id);
      compareButton.disabled = selected.size !== 2;
    }}});
    return el("tr", {class: run.live ? "live-row" : ""},
      el("td", {}, box),
      el("td", {}, el("a", {href: route("run", run.id)}, whenParts(run.started_at)),
        run.live ? el("span", {class: "tag live"}, run.stopped ? "stopped" : "running") : null,
        run.interrupted ? el("span", {class: "tag warn"}, "interrupted") : null,
        verdictTag(run.verdict),
        run.complete === false ? el("span", {class: "tag"}, "reading the file…") : null),
      el("td", {}, (run.eval_set_ids || []).join(", ")),
      el("td", {class: "agent wide-only"}, run.agent || ""),
      el("td", {}, run.live ? [counts(run.summary), " ", el("span", {class: "muted"}, `${run.summary.cases} of ${run.total || "?"} cases`)] : counts(run.summary)),
      el("td", {class: "num wide-only"}, fmtCost((run.summary || {}).cost)),
      el("td", {class: "num wide-only"}, fmtSeconds(run.duration_s)),
      el("td", {class: "git wide-only"}, gitText(run.git)),
      el("td", {}, previous ? el("a", {href: route("compare", previous.id, run.id), title: "what changed since the run before it"}, "changes since previous") : ""));
  });
  page.replaceChildren(...[  // replaceChildren writes a null as the text "null": leave absent parts out
    el("h1", {}, `Runs (${runs.length})`),
    el("p", {class: "muted"}, "Newest first, from ", (data.looked_in || []).join(", "), ". Click a run to see its cases; pick two to compare them, or follow \u201cchanges since previous\u201d."),
    trends(whole),
    el("div", {class: "toolbar"}, compareButton),
    tableWrap(el("table", {class: "runs"},
      el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "When"), el("th", {}, "Eval sets"), el("th", {class: "wide-only"}, "Agent"),
        el("th", {}, "Cases"), el("th", {class: "wide-only"}, "Cost"), el("th", {class: "wide-only"}, "Duration"), el("th", {class: "wide-only"}, "Git"), el("th", {}, ""))),
      el("tbody", {}, rows)))].filter(Boolean));
}

// Files that were looked at and are not result files, each with the reason (a run's --json is one).
function skippedFiles(skipped) {
  const entries = Object.entries(skipped || {});
  if (!entries.length) return null;
  return el("div", {id: "skipped"}, el("p", {}, `${entries.length} file${entries.length === 1 ? " was" : "s were"} not read as result files:`),
    el("ul", {}, entries.map(([name, why]) => el("li", {}, el("code", {}, name), `: ${why}`))),
    el("p", {class: "muted"}, "A result file is what evalkit run --json writes, or what a run keeps in .evalkit/runs/."));
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
// One series per eval set, agent and selection of cases: a run of another agent, or of a `--case`
// subset, is not a point on the same line (its pass rate says something else).
function trends(finished) {
  const bySeries = new Map();
  for (const run of [...finished].reverse()) {
    for (const [setId, figure] of Object.entries(run.sets || {})) {
      const key = JSON.stringify([setId, run.agent || "", figure.selection || ""]);
      if (!bySeries.has(key)) bySeries.set(key, {setId: setId, agent: run.agent, cases: figure.cases, points: []});
      bySeries.get(key).points.push({run: run, figure: figure});
    }
  }
  const series = [...bySeries.values()].filter(s => s.points.length > 1);
  const perSet = new Map();
  series.forEach(s => perSet.set(s.setId, (perSet.get(s.setId) || 0) + 1));
  const title = s => perSet.get(s.setId) > 1 || s.agent ? `${s.setId} · ${s.agent || "agent not recorded"} · ${s.cases} case${s.cases === 1 ? "" : "s"}` : s.setId;
  const plots = series.map(s => trendPlot(title(s), s.points));
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

