// Where the pages' data comes from: the server's JSON API, or an export's files.
// A classic script (templates/index.html loads them in order): its names are shared with the others.
"use strict";

// ---- data: the server's API, or an export's files ---------------------------------------

const cache = new Map();

async function getJson(url) {
  let response;
  try {
    response = await fetch(url, {headers: {"Accept": "application/json"}});
  } catch (error) {  // nothing answered: the server has stopped (or, for an export, the folder's server)
    showGone("evalkit view has stopped, so this page no longer updates; start it again and reload.");
    throw error;
  }
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
  history(setId, evalId) {  // a static copy has no server to gather a case across runs
    if (MODE === "static") return Promise.resolve(null);
    return getJson(`api/cases/${encodeURIComponent(setId)}/${encodeURIComponent(evalId)}/history`);
  },
  coverage(runId) {
    const id = encodeURIComponent(runId);
    return MODE === "static" ? getJson(`data/runs/${id}/coverage.json`) : getJson(`api/runs/${id}/coverage`);
  },
  historyCoverage() { return MODE === "static" ? getJson("data/coverage.json") : getJson("api/coverage"); },
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

