// The HTML report's only script: the case filter, the expand/collapse buttons and the media.
// It reads the case index and the media (data URLs evalkit made) from JSON islands and only
// ever sets `hidden`, `open`, `textContent` and a media element's `src`, so nothing from a
// result file is ever parsed as markup.
(function () {
  "use strict";
  var index = JSON.parse(document.getElementById("case-index").textContent);
  var textFilter = document.getElementById("filter");
  var statusFilter = document.getElementById("status-filter");
  var shownCount = document.getElementById("shown-count");
  var noMatch = document.getElementById("no-match");

  function caseElement(entry) {
    return document.getElementById("case-" + entry.i);
  }

  function apply() {
    var terms = textFilter.value.toLowerCase().split(/\s+/).filter(Boolean);
    var status = statusFilter.value;
    var shown = 0;
    index.forEach(function (entry) {
      var matches = (!status || entry.status === status) && terms.every(function (term) {
        return entry.text.indexOf(term) !== -1;
      });
      caseElement(entry).hidden = !matches;
      if (matches) {
        shown += 1;
      }
    });
    shownCount.textContent = shown + " of " + index.length + (index.length === 1 ? " case" : " cases");
    noMatch.hidden = shown !== 0;
  }

  function setOpen(open) {
    index.forEach(function (entry) {
      var element = caseElement(entry);
      if (!element.hidden) {
        element.open = open;
      }
    });
  }

  textFilter.addEventListener("input", apply);
  statusFilter.addEventListener("change", apply);
  document.querySelectorAll("button[data-status]").forEach(function (button) {
    button.addEventListener("click", function () {
      statusFilter.value = button.getAttribute("data-status");
      apply();
    });
  });
  // Each image, sound and video names its medium by hash; one the report could not hold says so.
  var island = document.getElementById("media");
  var media = island ? JSON.parse(island.textContent) : {};
  document.querySelectorAll("[data-media]").forEach(function (player) {
    var url = media[player.getAttribute("data-media")];
    if (url) {
      player.src = url;
    } else {
      player.hidden = true;
      var caption = player.parentNode.querySelector("figcaption");
      caption.textContent += " (not in this report: over its media budget, or no longer in .evalkit/media)";
    }
  });
  document.getElementById("expand-all").addEventListener("click", function () { setOpen(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setOpen(false); });
  apply();
})();
