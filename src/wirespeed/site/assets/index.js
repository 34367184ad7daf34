/* The index: one row a run (data/index.js), sorted by a column's heading and filtered by
   words and validity in the page. Sorted by a figure, rows are grouped by the figure's
   comparison key: figures measured otherwise (another link, tool, topology) are never
   set in one ranking, and each group says how its figures were measured. */
"use strict";

var wirespeedIndexData = null;
function wirespeedIndex(data) { wirespeedIndexData = data; }

(function () {
  var FIGURES = ["TCP", "NDR 64 B", "WireGuard", "AES-256-GCM", "Bufferbloat"];
  var COLUMNS = [
    { key: "device", title: "Device", text: function (r) { return r.board || r.target || r.name; } },
    { key: "soc", title: "SoC", text: function (r) { return r.soc || ""; }, narrow: true },
    { key: "firmware", title: "Firmware", text: function (r) { return r.firmware || ""; } },
    { key: "link", title: "Link", text: function (r) { return r.link || ""; }, narrow: true },
  ].concat(FIGURES.map(function (f) {
    return { key: f, title: f, figure: true, text: function (r) { return r.figures[f] ? r.figures[f].text : ""; } };
  })).concat([
    { key: "verdict", title: "Validity", text: function (r) { return r.verdict; } },
    { key: "trend", title: "Trend", text: function (r) { return r.trend ? r.trend.said : ""; } },
    { key: "file", title: "Bundle", text: function (r) { return r.name; }, narrow: true },
  ]);
  var state = { sort: "device", descending: false, words: "", validOnly: false, chosen: new Set() };

  function escape(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function haystack(row) {
    if (!row._words) {
      var parts = COLUMNS.map(function (c) { return c.text(row); });
      parts.push(row.kernel || "", row.target || "", row.file, row.title);
      Object.keys(row.labels).forEach(function (k) { parts.push(k + "=" + row.labels[k]); });
      row._words = parts.join(" \u0001 ").toLowerCase();
    }
    return row._words;
  }

  function visible(rows) {
    var words = state.words.toLowerCase().split(/\s+/).filter(Boolean);
    return rows.filter(function (row) {
      if (state.validOnly && !row.valid) return false;
      var text = haystack(row);
      return words.every(function (w) { return text.indexOf(w) >= 0; });
    });
  }

  function compareText(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

  /* Sorted rows, and for a figure's column the groups of one comparison key. */
  function arranged(rows) {
    var column = COLUMNS.find(function (c) { return c.key === state.sort; });
    var sign = state.descending ? -1 : 1;
    if (!column.figure) {
      var sorted = rows.slice().sort(function (a, b) {
        return sign * compareText(column.text(a).toLowerCase(), column.text(b).toLowerCase())
          || compareText(a.name, b.name);
      });
      return [{ key: null, rows: sorted }];
    }
    var groups = new Map(), without = [];
    rows.forEach(function (row) {
      var figure = row.figures[column.key];
      if (!figure || figure.value === null || figure.value === undefined) { without.push(row); return; }
      var key = figure.key || "";
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(row);
    });
    var ordered = Array.from(groups.entries()).sort(function (a, b) {
      return b[1].length - a[1].length || compareText(a[0], b[0]);
    }).map(function (entry) {
      entry[1].sort(function (a, b) {
        return sign * (a.figures[column.key].value - b.figures[column.key].value) || compareText(a.name, b.name);
      });
      return { key: entry[0], rows: entry[1] };
    });
    if (without.length) ordered.push({ key: null, rows: without, none: true });
    return ordered;
  }

  function cellHtml(column, row) {
    if (column.key === "device") {
      return '<a href="cards/' + row.page + '.html">' + escape(column.text(row)) + "</a>" +
        (row.target && row.target !== column.text(row) ? '<span class="sub">' + escape(row.target) + "</span>" : "");
    }
    if (column.figure) {
      var f = row.figures[column.key];
      if (!f) return '<span class="none">\u2013</span>';
      var title = f.key ? wirespeedIndexData.keys[f.key] : "";
      return '<span title="' + escape(title) + '">' + escape(f.text) + "</span>";
    }
    if (column.key === "verdict") {
      return '<span class="' + (row.valid ? "valid" : "invalid") + '">' + escape(row.verdict) + "</span>";
    }
    if (column.key === "trend") {
      return row.trend ? '<a href="' + escape(row.trend.page) + '">' + escape(row.trend.said) + "</a>" : "";
    }
    return escape(column.text(row));
  }

  function render() {
    var data = wirespeedIndexData;
    var shown = visible(data.rows);
    var html = [];
    var width = COLUMNS.length + 1;
    arranged(shown).forEach(function (group) {
      if (group.key !== null || group.none) {
        var said = group.none ? "not measured" : "measured as: " + (data.keys[group.key] || "unknown key");
        // The words stay in view while a narrow screen scrolls the table sideways.
        html.push('<tr class="key-group"><th colspan="' + width + '"><span>' + escape(state.sort) + " " +
          escape(said) + " (" + group.rows.length + ")</span></th></tr>");
      }
      group.rows.forEach(function (row) {
        var chosen = state.chosen.has(row.page);
        html.push('<tr data-page="' + row.page + '"' + (chosen ? ' class="chosen"' : "") + '><td class="pick">' +
          '<input type="checkbox" aria-label="choose ' + escape(row.name) + '"' + (chosen ? " checked" : "") + "></td>" +
          COLUMNS.map(function (c) {
            return '<td class="' + (c.figure ? "num " : "") + (c.narrow ? "narrow " : "") + "col-" +
              c.key.replace(/[^A-Za-z0-9]/g, "") + '">' + cellHtml(c, row) + "</td>";
          }).join("") + "</tr>");
      });
    });
    document.getElementById("rows").innerHTML = html.join("");
    document.getElementById("count").textContent = shown.length + " of " + data.rows.length + " results";
    document.querySelectorAll("#results thead th[data-key]").forEach(function (th) {
      var key = th.getAttribute("data-key");
      th.setAttribute("aria-sort", key === state.sort ? (state.descending ? "descending" : "ascending") : "none");
    });
    updateCompare();
  }

  function updateCompare() {
    var button = document.getElementById("compare");
    button.disabled = state.chosen.size < 2;
    button.textContent = "Compare " + state.chosen.size + " chosen";
  }

  function start() {
    var data = wirespeedIndexData;
    if (!data) { document.getElementById("count").textContent = "data/index.js did not load"; return; }
    var head = document.querySelector("#results thead tr");
    head.innerHTML = '<th class="pick"><span class="sr">choose</span></th>' + COLUMNS.map(function (c) {
      return '<th data-key="' + escape(c.key) + '" class="' + (c.figure ? "num " : "") + (c.narrow ? "narrow" : "") +
        '"><button type="button">' + escape(c.title) + "</button></th>";
    }).join("");
    head.addEventListener("click", function (event) {
      var th = event.target.closest("th[data-key]");
      if (!th) return;
      var key = th.getAttribute("data-key");
      state.descending = state.sort === key ? !state.descending : COLUMNS.find(function (c) {
        return c.key === key; }).figure && key !== "Bufferbloat";
      state.sort = key;
      render();
    });
    var filter = document.getElementById("filter");
    var pending = null;
    filter.addEventListener("input", function () {
      clearTimeout(pending);
      pending = setTimeout(function () { state.words = filter.value; render(); }, 80);
    });
    document.getElementById("valid-only").addEventListener("change", function (event) {
      state.validOnly = event.target.checked; render();
    });
    document.getElementById("rows").addEventListener("change", function (event) {
      var tr = event.target.closest("tr[data-page]");
      if (!tr) return;
      var page = tr.getAttribute("data-page");
      if (event.target.checked) state.chosen.add(page); else state.chosen.delete(page);
      tr.classList.toggle("chosen", event.target.checked);
      updateCompare();
    });
    document.getElementById("compare").addEventListener("click", function () {
      location.href = "compare.html#" + Array.from(state.chosen).join(",");
    });
    var bad = document.getElementById("bad");
    if (data.bad.length) {
      bad.textContent = data.bad.length + " bundle(s) left out: " + data.bad.join("; ");
      bad.hidden = false;
    }
    render();
    document.body.setAttribute("data-ready", "true");
    window.siteReadyAt = performance.now();  // time to interactive, for benchmarks/site_scale.py
  }
  document.addEventListener("DOMContentLoaded", start);
})();
