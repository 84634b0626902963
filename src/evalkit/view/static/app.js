// evalkit view's router: the address (#/run/ID, #/compare/A/B, ...) picks the page to draw.
// Loaded last (templates/index.html): the pages' functions are defined by the scripts before it.
"use strict";

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

// A page that follows a growing run asks the server again every second or so. When the
// server has gone (evalkit view was stopped) it says so once and stops asking.
function startPolling(fn, seconds) {
  stopPolling();
  pollTimer = setInterval(async () => {
    try {
      await fn();
    } catch (error) {
      stopPolling();
      const gone = document.getElementById("gone");
      gone.textContent = error instanceof NotFound
        ? "This page's run is no longer among the viewer's files; go back to the runs."
        : "evalkit view has stopped, so this page no longer updates; start it again and reload.";
      gone.hidden = false;
      document.getElementById("live").hidden = true;
    }
  }, Math.max(250, (seconds || 1) * 1000));
}

function stopPolling() { if (pollTimer) clearInterval(pollTimer); pollTimer = null; }

