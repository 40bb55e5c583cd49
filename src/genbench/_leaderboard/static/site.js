// The leaderboard's script, inlined into every page (the site opens from file://: nothing can be loaded beside it).
// Sorting: a click on a `th.sortable` orders the rows of its table's first body by the cells' data-sort values
// (numbers numerically, missing values last), descending first for numbers; other bodies (the baselines block) keep
// their place. Filtering: `#gb-filter` hides the rows of `table.gb-filterable` whose data-keywords do not contain
// the typed text, and ranks the models again over the tasks left (`rerank`: means, coverage, ranks, per-axis
// means). Axis buttons show the taxonomy table of their axis. Test hooks: `#sort=N` clicks the N-th header of the
// first table, `#filter=TEXT` types TEXT and `#axis=NAME` presses an axis button, once the page has loaded.
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
    var shown = [];
    document.querySelectorAll("#gb-tasks tbody tr[data-task]").forEach(function (row) {
      if (!row.classList.contains("gb-hidden")) shown.push(row.getAttribute("data-task"));
    });
    rerank(needle === "" ? null : shown);
  }
  // Ranking again over the tasks the filter shows: the rows' means, coverage and ranks, the per-axis means and the
  // title are recomputed from #gb-ranking-data (scores and bootstrap spreads per task); an empty filter puts the
  // page's own (full bootstrap) numbers back.
  var DATA = null, ORIGINAL = null;
  function saved() {
    var parts = [];
    document.querySelectorAll("#gb-ranking tbody, table.gb-axis-table tbody, table.gb-axis-table thead th, #gb-title")
      .forEach(function (element) { parts.push([element, element.innerHTML]); });
    return parts;
  }
  function fixed(x) { return x.toFixed(3); }
  function mean(model, ids) {
    var scores = DATA.models[model].scores, values = [], spreads = [], none = true;
    ids.forEach(function (id) {
      var score = scores[id];
      if (!score) return;
      values.push(score[0]);
      if (score[1] !== null) none = false;
      spreads.push(score[1] || 0);
    });
    if (!values.length) return {covered: 0, of: ids.length, value: null, ci: null};
    var k = values.length, value = values.reduce(function (a, b) { return a + b; }, 0) / k;
    var half = 1.959964 * Math.sqrt(spreads.reduce(function (a, b) { return a + b * b; }, 0)) / k;
    return {covered: k, of: ids.length, value: value, ci: none ? null : [value - half, value + half]};
  }
  function scoreCell(cell, group) {
    if (group.value === null) {
      cell.innerHTML = '<span class="gb-missing">—</span>';
      cell.setAttribute("data-sort", "");
      return;
    }
    var html = '<span class="gb-value">' + fixed(group.value) + "</span>";
    if (group.ci) {
      html += '<span class="gb-ci gb-sub" title="95% interval over the tasks shown (normal approximation from the ' +
              'bootstrap spread of each task)">[' + fixed(group.ci[0]) + ", " + fixed(group.ci[1]) + "]</span>";
    }
    if (group.covered < group.of) {
      html += '<span class="gb-partial-mark" title="covers ' + group.covered + " of " + group.of + ' tasks">' +
              group.covered + "/" + group.of + " tasks</span>";
    }
    cell.innerHTML = html;
    cell.setAttribute("data-sort", String(group.value));
  }
  function rerank(shown) {
    var table = document.getElementById("gb-ranking"), source = document.getElementById("gb-ranking-data");
    if (!table || !source) return;
    if (DATA === null) { DATA = JSON.parse(source.textContent); ORIGINAL = saved(); }
    table.querySelectorAll("thead th").forEach(function (th) { th.removeAttribute("aria-sort"); });
    if (shown === null) {
      ORIGINAL.forEach(function (part) { part[0].innerHTML = part[1]; });
      document.querySelectorAll("table.gb-axis-table thead th").forEach(function (th) {
        th.classList.remove("gb-hidden");
      });
      return;
    }
    var counted = DATA.counted.filter(function (id) { return shown.indexOf(id) >= 0; });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      var rows = Array.prototype.slice.call(body.querySelectorAll("tr[data-model]"));
      rows.forEach(function (row) { row.gbGroup = mean(Number(row.getAttribute("data-model")), counted); });
      rows.sort(function (a, b) {
        var x = a.gbGroup, y = b.gbGroup;
        if (x.covered !== y.covered) return y.covered - x.covered;
        var vx = x.value === null ? -Infinity : x.value, vy = y.value === null ? -Infinity : y.value;
        if (vx !== vy) return vy - vx;
        var lx = DATA.models[a.getAttribute("data-model")].label, ly = DATA.models[b.getAttribute("data-model")].label;
        return lx < ly ? -1 : lx > ly ? 1 : 0;
      });
      var rank = 0;
      rows.forEach(function (row) {
        var group = row.gbGroup, baseline = DATA.models[row.getAttribute("data-model")].baseline;
        var complete = group.covered === group.of && group.of > 0, cells = row.cells;
        var ranked = complete && !baseline ? ++rank : null;
        cells[0].textContent = ranked === null ? "—" : String(ranked);
        cells[0].setAttribute("data-sort", ranked === null ? "" : String(ranked));
        scoreCell(cells[2], {covered: group.covered, of: group.covered, value: group.value, ci: group.ci});
        cells[3].innerHTML = complete ? group.covered + "/" + group.of :
          '<span class="gb-partial-mark" title="not ranked: misses a task">' + group.covered + "/" + group.of +
          "</span>";
        cells[3].setAttribute("data-sort", String(group.covered));
        row.classList.toggle("gb-partial", !complete);
        row.classList.toggle("gb-ranked", ranked !== null);
        body.appendChild(row);
      });
    });
    document.querySelectorAll("table.gb-axis-table").forEach(function (axisTable) {
      var headers = Array.prototype.slice.call(axisTable.tHead.rows[0].cells, 1);
      var groups = headers.map(function (th) {
        var ids = (th.getAttribute("data-tasks") || "").split(" ").filter(function (id) {
          return counted.indexOf(id) >= 0;
        });
        th.querySelector("small").textContent = ids.length + " of " +
          th.getAttribute("data-tasks").split(" ").length + " shown";
        th.classList.toggle("gb-hidden", ids.length === 0);  // a value none of the tasks shown has
        return ids;
      });
      Array.prototype.forEach.call(axisTable.tBodies[0].rows, function (row) {
        groups.forEach(function (ids, column) {
          scoreCell(row.cells[column + 1], mean(Number(row.getAttribute("data-model")), ids));
          row.cells[column + 1].classList.toggle("gb-hidden", ids.length === 0);
        });
      });
    });
    var ranked = table.querySelectorAll("tbody tr.gb-ranked").length, title = document.getElementById("gb-title");
    var models = DATA.models.filter(function (model) { return !model.baseline; }).length;
    var tasks = counted.length + " of " + DATA.counted.length + " task" + (DATA.counted.length === 1 ? "" : "s");
    if (title && models) {
      title.textContent = "Leaderboard: " + ranked + " ranked model" + (ranked === 1 ? "" : "s") + " over " + tasks +
        " (filtered)";
    } else if (title) {
      title.textContent = "Baselines on " + tasks + " (filtered; no model results yet)";
    }
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
