// Coverage: a run's tool × case matrix (on the run's page), and the tools no recent run called (on the runs page).
// A classic script (templates/index.html loads them in order): its names are shared with the others.
"use strict";

// ---- a run: which case called which tool ----------------------------------------------------

async function coverageSection(runId) {
  const data = await api.coverage(runId);
  const coverage = data.coverage, matrix = data.matrix;
  if (!coverage) return null;  // evalkit did not know the agent's tools: no coverage to show
  const never = new Set(coverage.tools.never_called);
  const called = coverage.tools.called;
  const lines = data.lines;
  const head = el("tr", {}, el("th", {}, "Case"),
    matrix.tools.map(name => el("th", {class: never.has(name) ? "tool never" : "tool", scope: "col", title: argumentsTitle(coverage, name)},
      el("span", {}, name))));
  const body = matrix.rows.map(row => el("tr", {},
    el("th", {scope: "row"}, el("a", {href: route("run", runId, "case", row.index)}, `${row.eval_set_id}/${row.eval_id}`)),
    matrix.tools.map(name => {
      const count = row.calls[name] || 0;
      return el("td", {class: count ? "num hit" : "num", title: `${row.eval_id} → ${name}: ${count} call${count === 1 ? "" : "s"}`}, count ? String(count) : "");
    })));
  const total = el("tr", {class: "total"}, el("th", {scope: "row"}, "All cases"),
    matrix.tools.map(name => el("td", {class: never.has(name) ? "num never" : "num"}, String(called[name] || 0))));
  return el("section", {class: "coverage", id: "coverage"},
    el("h2", {}, "Coverage"),
    el("ul", {class: "coverage-lines"}, lines.map(line => el("li", {}, line))),
    el("details", {open: matrix.rows.length <= 20},  // a long matrix stays folded above the cases
      el("summary", {}, "Tool calls per case"),
      tableWrap(el("table", {class: "coverage-matrix", id: "coverage-matrix"}, el("thead", {}, head), el("tbody", {}, body, total)))),
    matrix.total > matrix.rows.length ? el("p", {class: "muted"}, `The first ${matrix.rows.length} of ${matrix.total} cases are shown.`) : null);
}

function argumentsTitle(coverage, tool) {
  const given = coverage.arguments[tool];
  if (!given || !Object.keys(given).length) return tool;
  return `${tool}: ` + Object.entries(given).map(([name, count]) => `${name} given in ${count} call${count === 1 ? "" : "s"}`).join(", ");
}

// ---- the history: tools never called in the last runs ----------------------------------------

async function historyCoverageSection() {
  const data = await api.historyCoverage();
  if (!data.coverage) return null;
  const coverage = data.coverage;
  const rows = coverage.tools.declared.map(name => el("tr", {class: coverage.tools.called[name] ? "" : "never"},
    el("td", {}, el("code", {}, name)),
    el("td", {class: "num"}, `${data.runs_calling[name] || 0} of ${data.runs.length}`),
    el("td", {class: "num"}, String(coverage.tools.called[name] || 0))));
  return el("section", {class: "coverage", id: "history-coverage"},
    el("h2", {}, `Coverage over the last ${data.runs.length} run${data.runs.length === 1 ? "" : "s"} with coverage`),
    el("ul", {class: "coverage-lines"}, data.lines.map(line => el("li", {}, line))),
    tableWrap(el("table", {class: "coverage-history"},
      el("thead", {}, el("tr", {}, el("th", {}, "Tool"), el("th", {class: "num"}, "Runs that called it"), el("th", {class: "num"}, "Calls"))),
      el("tbody", {}, rows))));
}
