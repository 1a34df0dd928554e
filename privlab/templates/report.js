/* report.html's verdict filter, inlined by privlab.report.render_html (plain JavaScript, no libraries).
   "all" shows everything; a verdict shows only the claim rows with that verdict, hides every experiment,
   paper and contents entry without such a row, and the per-paper lists of failed experiments.
   The choice is kept in the address (#verdict=disagree), so such a link opens the filtered page. */
(function () {
  "use strict";
  var CHOICES = ["all", "agree", "disagree", "inconclusive", "info"];

  function each(selector, fn) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), fn);
  }

  function show(choice) {
    if (CHOICES.indexOf(choice) < 0) {
      choice = "all";
    }
    var all = choice === "all";
    var rows = 0;
    var sections = 0;
    each("tr.claim", function (row) {
      row.hidden = !all && row.getAttribute("data-verdict") !== choice;
      if (!row.hidden) {
        rows += 1;
      }
    });
    each("section.experiment", function (section) {
      section.hidden = !all && !section.querySelector("tr.claim:not([hidden])");
      if (!section.hidden) {
        sections += 1;
      }
    });
    each("[data-unfiltered-only]", function (element) {
      element.hidden = !all;
    });
    each("section.paper", function (paper) {
      paper.hidden = !all && !paper.querySelector("section.experiment:not([hidden])");
    });
    each("nav.toc li[data-target]", function (item) {
      var target = document.getElementById(item.getAttribute("data-target"));
      item.hidden = !target || target.hidden;
    });
    each("button[data-filter]", function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-filter") === choice));
    });
    var status = document.getElementById("filter-status");
    if (status) {
      status.textContent = all
        ? "showing everything"
        : "showing " + rows + " " + choice + " claim row" + (rows === 1 ? "" : "s") + " in " + sections +
          " experiment" + (sections === 1 ? "" : "s");
    }
    return choice;
  }

  function fromAddress() {
    var match = /^#verdict=(\w+)$/.exec(window.location.hash);
    return match ? match[1] : "all";
  }

  each("button[data-filter]", function (button) {
    button.addEventListener("click", function () {
      var choice = show(button.getAttribute("data-filter"));
      var hash = choice === "all" ? "" : "#verdict=" + choice;
      try {
        history.replaceState(null, "", hash || window.location.pathname + window.location.search);
      } catch (err) {
        /* some file:// contexts refuse address changes; the filter works without them */
      }
    });
  });
  window.addEventListener("hashchange", function () {
    if (/^#verdict=/.test(window.location.hash)) {
      show(fromAddress());
    }
  });
  show(fromAddress());
})();
