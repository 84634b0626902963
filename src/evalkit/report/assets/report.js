// The HTML report's only script: the case filter and the expand/collapse buttons.
// It reads the case index from the JSON island and only ever sets `hidden`, `open`
// and `textContent`, so nothing from a result file is ever parsed as markup.
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
  document.getElementById("expand-all").addEventListener("click", function () { setOpen(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setOpen(false); });
  apply();
})();
