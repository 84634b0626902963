// evalkit view: every page is drawn in the browser from the JSON API (docs/viewer.md), by
// the scripts templates/index.html loads in order: this one first, app.js (the router) last.
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

// A time in a table: its day and its time each kept whole, so a narrow screen wraps it into two lines at most.
function whenParts(text) {
  const date = new Date(text);
  if (!text || isNaN(date)) return fmtWhen(text);
  return [el("span", {class: "nowrap"}, date.toLocaleDateString(undefined, {dateStyle: "medium"})), " ",
          el("span", {class: "nowrap"}, date.toLocaleTimeString(undefined, {timeStyle: "medium"}))];
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

// The run's verdict (the exit code's): a red "failed" tag when a gate failed, with each reason beside it.
// Counts alone can read "2 passed, 0 failed" for a run that failed its coverage gate.
function verdictTag(verdict) {
  if (!verdict || verdict.passed) return null;
  const gates = (verdict.failures || []).map(f => f.gate).join(", ");
  return el("span", {class: "tag fail", title: (verdict.failures || []).map(f => f.message).join("\n")}, `failed: ${gates}`);
}

function verdictReasons(verdict) {
  if (!verdict || verdict.passed) return null;
  return el("ul", {class: "verdict-reasons"}, (verdict.failures || []).map(f => el("li", {}, el("strong", {}, f.gate), `: ${f.message}`)));
}

function gitText(git) {
  if (!git || !git.commit) return "";
  return `${git.branch || "detached"} @ ${String(git.commit).slice(0, 8)}`;
}

function tableWrap(table) { return el("div", {class: "table-wrap"}, table); }

