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
"""
    + CARD_CSS
)

# Sorting: a click on a `th.sortable` orders the rows of its table by the cells' data-sort values (numbers
# numerically, missing values last), descending first for numbers. Filtering: `#gb-filter` hides the columns whose
# header's data-keywords (and name) do not contain the typed text. Test hook: `#sort=N` clicks the N-th header and
# `#filter=TEXT` types TEXT once the page has loaded (used by the headless-browser test, harmless otherwise).
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
  function filterColumns(text) {
    var needle = text.trim().toLowerCase();
    document.querySelectorAll("table.gb-filterable").forEach(function (table) {
      var headers = table.tHead.rows[0].cells;
      for (var i = 1; i < headers.length; i++) {
        var haystack = (headers[i].getAttribute("data-keywords") || "") + " " + headers[i].textContent;
        var hide = needle !== "" && haystack.toLowerCase().indexOf(needle) < 0;
        headers[i].classList.toggle("gb-hidden", hide);
        Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
          row.cells[i].classList.toggle("gb-hidden", hide);
        });
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("th.sortable").forEach(function (th) {
      th.addEventListener("click", function () { sortBy(th); });
    });
    var filter = document.getElementById("gb-filter");
    if (filter) filter.addEventListener("input", function () { filterColumns(filter.value); });
    var hash = decodeURIComponent(window.location.hash.slice(1));
    hash.split("&").forEach(function (part) {
      var pair = part.split("=");
      if (pair[0] === "sort") {
        var th = document.querySelectorAll("table.gb-board th")[Number(pair[1])];
        if (th) th.click();
      } else if (pair[0] === "filter" && filter) {
        filter.value = pair.slice(1).join("=");
        filter.dispatchEvent(new Event("input"));
      }
    });
    document.body.setAttribute("data-ready", "1");
  });
})();
"""
