"""The leaderboard's stylesheet and script, inlined into every page.

Hand-written and inlined rather than a front-end library: the site must open from ``file://`` with no server and
no network (browsers block many ``file://`` sub-resources, and a CDN is the network), and sorting a table and
filtering its columns take a few dozen lines.
"""

from __future__ import annotations

from genbench.display.html import CARD_CSS

SITE_CSS = (
    """
body{font-family:system-ui,sans-serif;font-size:14px;margin:16px 24px;color:#222;background:#fafafc}
h1{font-size:20px;margin:4px 0 8px 0}h2{font-size:16px;margin:18px 0 6px 0}
a{color:#1a55a6;text-decoration:none}a:hover{text-decoration:underline}
nav{margin-bottom:10px;color:#667}
table.gb-board{border-collapse:collapse;background:#fff}
table.gb-board th,table.gb-board td{border:1px solid #dde;padding:3px 8px;text-align:right;white-space:nowrap}
table.gb-board th:first-child,table.gb-board td:first-child{text-align:left}
table.gb-board th.sortable{cursor:pointer;user-select:none}
table.gb-board th.sortable:after{content:" \\2195";color:#aab}
table.gb-board th[aria-sort=ascending]:after{content:" \\2191";color:#222}
table.gb-board th[aria-sort=descending]:after{content:" \\2193";color:#222}
.gb-ci{color:#778;font-size:12px}.gb-note{color:#886}.gb-missing{color:#bbb}
.gb-hidden{display:none}
#gb-filter{margin:6px 0 10px 0;padding:3px 6px;width:22em}
.gb-chart{background:#fff;border:1px solid #dde}
.gb-summary{color:#445;max-width:110em;margin:2px 0 6px 0}
.gb-top{display:grid;grid-template-columns:minmax(0,auto) minmax(0,1fr);gap:28px;align-items:start}
.gb-top h2{margin-top:6px}
.gb-scroll{overflow-x:auto;max-width:100%}
.gb-sub{display:block;line-height:1.1}
table.gb-board td{vertical-align:top}
table.gb-board td.gb-model,table.gb-board td.gb-task,table.gb-board th.gb-left{text-align:left}
.gb-task .gb-note{font-size:12px}
.gb-name{display:inline-block;max-width:17em;overflow:hidden;text-overflow:ellipsis;vertical-align:bottom}
.gb-model-col .gb-name{max-width:10em}
tr.gb-partial td{background:#fbf8ee}
.gb-partial-mark{display:block;color:#a65e00;font-size:11px}
th.gb-group{text-align:left;background:#eef0f6;font-weight:600}
tr.gb-baseline td{color:#556;background:#f6f7fa}
.gb-axis-buttons{margin:0 0 6px 0}
.gb-axis-button{border:1px solid #bbc;background:#fff;border-radius:3px;padding:2px 8px;margin:0 3px 3px 0;
cursor:pointer;font:inherit}
.gb-axis-button[aria-pressed=true]{background:#1a55a6;color:#fff;border-color:#1a55a6}
.gb-tag{display:inline-block;background:#eef;border-radius:3px;padding:0 4px;margin-left:4px;font-size:11px}
.gb-metric{color:#556}
.gb-direction{color:#a65e00;font-size:12px}
"""
    + CARD_CSS
)

# Sorting: a click on a `th.sortable` orders the rows of its table's first body by the cells' data-sort values
# (numbers numerically, missing values last), descending first for numbers; other bodies (the baselines block) keep
# their place. Filtering: `#gb-filter` hides the rows of `table.gb-filterable` whose data-keywords do not contain
# the typed text. Axis buttons show the taxonomy table of their axis. Test hooks: `#sort=N` clicks the N-th header
# of the first table, `#filter=TEXT` types TEXT and `#axis=NAME` presses an axis button, once the page has loaded.
SITE_JS = """
(function () {
  function key(cell) {
    var raw = cell ? cell.getAttribute("data-sort") : null;
    if (raw === null || raw === "") return null;
    var number = Number(raw);
    return isNaN(number) ? raw.toLowerCase() : number;
  }
  function sortBy(th) {
    var table = th.closest("table"), index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-type") === "number";
    var current = th.getAttribute("aria-sort");
    var order = current === (numeric ? "descending" : "ascending") ? (numeric ? "ascending" : "descending")
                                                                    : (numeric ? "descending" : "ascending");
    Array.prototype.forEach.call(th.parentNode.children, function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", order);
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[index]), y = key(b.cells[index]);
      if (x === null || y === null) return x === null ? (y === null ? 0 : 1) : -1;
      var c = x < y ? -1 : x > y ? 1 : 0;
      return order === "ascending" ? c : -c;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  function filterRows(text) {
    var needle = text.trim().toLowerCase();
    document.querySelectorAll("table.gb-filterable").forEach(function (table) {
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var haystack = (row.getAttribute("data-keywords") || "") + " " + row.textContent;
        row.classList.toggle("gb-hidden", needle !== "" && haystack.toLowerCase().indexOf(needle) < 0);
      });
    });
  }
  function showAxis(axis) {
    document.querySelectorAll(".gb-axis-button").forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-axis") === axis));
    });
    document.querySelectorAll("table.gb-axis-table").forEach(function (table) {
      table.classList.toggle("gb-hidden", table.getAttribute("data-axis") !== axis);
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("th.sortable").forEach(function (th) {
      th.addEventListener("click", function () { sortBy(th); });
    });
    document.querySelectorAll(".gb-axis-button").forEach(function (button) {
      button.addEventListener("click", function () { showAxis(button.getAttribute("data-axis")); });
    });
    var filter = document.getElementById("gb-filter");
    if (filter) filter.addEventListener("input", function () { filterRows(filter.value); });
    var hash = decodeURIComponent(window.location.hash.slice(1));
    hash.split("&").forEach(function (part) {
      var pair = part.split("=");
      if (pair[0] === "sort") {
        var first = document.querySelector("table.gb-board thead");
        var th = first ? first.rows[0].cells[Number(pair[1])] : null;
        if (th) th.click();
      } else if (pair[0] === "filter" && filter) {
        filter.value = pair.slice(1).join("=");
        filter.dispatchEvent(new Event("input"));
      } else if (pair[0] === "axis") {
        showAxis(pair[1]);
      }
    });
    document.body.setAttribute("data-ready", "1");
  });
})();
"""
