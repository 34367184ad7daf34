/* The comparison page: the cards named after # (compare.html#P1,P2,...), each loaded from
   its own data file, set side by side as `wirespeed compare FILE1 FILE2 ...` sets them
   (analysis/compare_many.py with strict keys, card/compare.py): rows matched on test,
   variant, measurement and labels, each figure against the first column's, a figure
   measured otherwise saying which key differs, the cards' parts in card order. */
"use strict";

var wirespeedLoaded = {};
function wirespeedCard(data) { wirespeedLoaded[data.page] = data; }
var wirespeedSiteData = null;
function wirespeedSite(data) { wirespeedSiteData = data; }

(function () {
  var S = WirespeedStats;
  var MARKS = { "significant": "*", "not significant": "~" };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  function load(src) {
    return new Promise(function (resolve, reject) {
      var script = el("script", { src: src });
      script.onload = resolve;
      script.onerror = function () { reject(new Error(src)); };
      document.head.appendChild(script);
    });
  }

  function labelsKey(labels) { return JSON.stringify(labels); }

  /* comparison_key.difference */
  function difference(first, other) {
    var theirs = new Map(other.map(function (p) { return [p[0], p]; }));
    var said = [];
    first.forEach(function (part) {
      var o = theirs.get(part[0]);
      theirs.delete(part[0]);
      if (o === undefined) said.push(part[0] + " " + part[1] + " vs none");
      else if (o[2] !== part[2]) said.push((part[0] === "tool" ? "" : part[0] + " ") + part[1] + " vs " + o[1]);
    });
    theirs.forEach(function (p) { said.push(p[0] + " none vs " + p[1]); });
    return said.length ? said.join("; ") : null;
  }

  /* compare_many.compare_columns, _by_frame_size and _comparable (strict). */
  function compareColumns(perRun) {
    var several = new Set();
    perRun.forEach(function (groups) {
      var seen = new Map();
      groups.forEach(function (g) {
        var match = JSON.stringify([g.test_id, g.variant, g.name, g.labels]);
        if (!seen.has(match)) seen.set(match, g.path);
        else if (seen.get(match) !== g.path) several.add(match);
      });
    });
    var rows = new Map();
    perRun.forEach(function (groups, index) {
      groups.forEach(function (g) {
        var match = JSON.stringify([g.test_id, g.variant, g.name, g.labels]);
        var shown = several.has(match) ? g.path : null;
        var key = JSON.stringify([g.test_id, shown, g.variant, g.name, g.labels]);
        if (!rows.has(key)) {
          rows.set(key, { test_id: g.test_id, test_name: g.test_name, path: shown, variant: g.variant,
            name: g.name, labels: g.labels, unit: g.unit, better: g.better, part: g.part, kept: g.kept,
            slots: perRun.map(function () { return null; }) });
        }
        var row = rows.get(key);
        if (row.slots[index] === null) row.slots[index] = g;
      });
    });
    var built = [];
    rows.forEach(function (row) {
      var first = null;
      row.cells = row.slots.map(function (g, index) {
        if (g === null) return null;
        var made = S.cell(g, index === 0 ? null : (first === null ? null : first.group));
        if (index === 0) first = made;
        return made;
      });
      built.push(row);
    });
    return byFrameSize(built);
  }

  var DIRECTIONS = ["up", "down", "both", "in", "out"];
  function cellOrder(row) {
    var labels = new Map(row.labels), frame = (labels.get("frame") || "").replace(/ B$/, "");
    var direction = labels.get("direction");
    if (!/^[0-9]+$/.test(frame) || direction === undefined) return null;
    var rank = DIRECTIONS.indexOf(direction);
    return [parseInt(frame, 10), rank < 0 ? DIRECTIONS.length : rank];
  }
  function byFrameSize(rows) {
    var at = [];
    rows.forEach(function (row, i) { if (cellOrder(row) !== null) at.push(i); });
    var tests = new Map();
    at.forEach(function (i) {
      var place = JSON.stringify([rows[i].test_id, rows[i].path, rows[i].variant]);
      if (!tests.has(place)) tests.set(place, tests.size);
    });
    function order(i) {
      var place = JSON.stringify([rows[i].test_id, rows[i].path, rows[i].variant]);
      var c = cellOrder(rows[i]);
      return [tests.get(place), c[0], c[1], i];
    }
    var sorted = at.slice().sort(function (x, y) {
      var a = order(x), b = order(y);
      for (var k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k] - b[k];
      return 0;
    });
    var placed = rows.slice();
    at.forEach(function (slot, n) { placed[slot] = rows[sorted[n]]; });
    return placed;
  }
  function strictKeys(rows) {
    rows.forEach(function (row) {
      var first = row.cells[0];
      if (!first) return;
      for (var i = 1; i < row.cells.length; i++) {
        var c = row.cells[i];
        if (!c) continue;
        var said = difference(first.group.key, c.group.key);
        if (said !== null) {
          row.cells[i] = { group: c.group, median: c.median, ratio: null, interval: null, p: null,
            verdict: null, not_comparable: said };
        }
      }
    });
  }

  function item(row) {
    var text = row.name;
    if (row.labels.length) text += " " + row.labels.map(function (l) { return l[1]; }).join(", ");
    if (row.path !== null) text += " on " + row.path;
    if (row.variant !== "default" && row.variant !== "") text += " (" + row.variant + ")";
    return text;
  }
  function rowLabel(row) {
    return row.test_id + " " + item(row) + " " + (row.better === "higher" ? "\u2191" : "\u2193");
  }
  function percentText(c) {
    if (c.ratio === null) return c.verdict === "no ratio" ? "no ratio" : "";
    var percent = (c.ratio - 1.0) * 100.0;
    var sign = percent >= 0 ? "+" : "\u2212";
    return sign + S.fixed1(Math.abs(percent)) + " %" + (MARKS[c.verdict] || "");
  }
  function cellLines(c) {
    if (!c) return ["\u2013"];
    var lines = [c.group.text], change = percentText(c);
    if (change) lines.push(change);
    if (c.not_comparable) lines.push("not comparable: " + c.not_comparable);
    return lines;
  }

  function compare(cards) {
    var allCards = cards.every(function (c) { return c.card; });
    var perRun = cards.map(function (card) {
      return card.groups.map(function (g) {
        // A --tuned card's stock variant is what a plain card measures (card/compare.py).
        var variant = allCards && g.variant === wirespeedSiteData.stock ? wirespeedSiteData.default : g.variant;
        return Object.assign({}, g, { variant: variant });
      });
    });
    var rows = compareColumns(perRun);
    strictKeys(rows);
    var columns = cards.map(function (card) {
      return { name: card.name, label: card.name + ":" + (allCards ? " " + card.target : card.devices_label),
        page: card.page, title: card.title };
    });
    var notes = [];
    cards[0].facts.forEach(function (fact, index) {
      var values = cards.map(function (c) { return c.facts[index][1]; });
      if (new Set(values).size > 1) notes.push(fact[0] + ": " + values.join(" | "));
    });
    cards.forEach(function (c) { notes.push(c.name + ": " + c.verdict); });
    var parts;
    if (allCards) {
      parts = wirespeedSiteData.parts.map(function (part) {
        return { key: part[0], title: part[1], rows: rows.filter(function (r) { return r.part === part[0] && r.kept; }) };
      }).filter(function (p) { return p.rows.length; });
    } else {
      parts = [{ key: null, title: null, rows: rows }];
    }
    return { title: allCards ? cards.length + " device cards compared" : cards.length + " runs compared",
      columns: columns, notes: notes, parts: parts };
  }

  function render(comparison) {
    var main = document.getElementById("comparison");
    main.textContent = "";
    main.appendChild(el("h1", {}, [comparison.title]));
    main.appendChild(el("ul", { class: "columns" }, comparison.columns.map(function (c) {
      return el("li", {}, [el("a", { href: "cards/" + c.page + ".html" }, [c.label])]);
    }).concat(comparison.notes.map(function (n) { return el("li", { class: "note" }, [n]); }))));
    comparison.parts.forEach(function (part) {
      if (part.title) main.appendChild(el("h2", {}, [part.title]));
      var head = el("tr", {}, [el("th", {}, ["Measurement"])].concat(comparison.columns.map(function (c) {
        return el("th", { class: "num" }, [c.name]);
      })));
      var body = part.rows.map(function (row) {
        return el("tr", {}, [el("th", { scope: "row" }, [rowLabel(row)])].concat(row.cells.map(function (c) {
          var lines = cellLines(c), td = el("td", { class: "num" + (c && c.not_comparable ? " not-comparable" : "") });
          lines.forEach(function (line, i) {
            if (i) td.appendChild(el("br"));
            td.appendChild(document.createTextNode(line));
          });
          return td;
        })));
      });
      main.appendChild(el("div", { class: "wide" }, [el("table", { class: "compare", "data-part": part.key || "" },
        [el("thead", {}, [head]), el("tbody", {}, body)])]));
    });
    main.appendChild(el("p", { class: "legend" }, [wirespeedSiteData.legend]));
  }

  /* What the page computed, as `compare --format json` says it: for a reader (and a test). */
  function summary(comparison) {
    return {
      title: comparison.title,
      columns: comparison.columns.map(function (c) { return c.label; }),
      notes: comparison.notes,
      parts: comparison.parts.map(function (p) {
        return { key: p.key, rows: p.rows.map(function (row) {
          return { test_id: row.test_id, item: item(row), cells: row.cells.map(function (c) {
            if (!c) return null;
            return { median: c.median, percent: c.ratio === null ? null : (c.ratio - 1.0) * 100.0,
              verdict: c.verdict, not_comparable: c.not_comparable || null, lines: cellLines(c) };
          }) };
        }) };
      }),
    };
  }

  function start() {
    var pages = decodeURIComponent(location.hash.replace(/^#/, "")).split(",").filter(function (p) {
      return /^[0-9a-f]{16}$/.test(p);
    });
    var status = document.getElementById("status");
    if (pages.length < 2) {
      status.textContent = "Choose two cards or more in the table of all results, then Compare.";
      return;
    }
    status.textContent = "Loading " + pages.length + " cards\u2026";
    Promise.all([load("data/site.js")].concat(pages.map(function (p) { return load("data/cards/" + p + ".js"); })))
      .then(function () {
        var cards = pages.map(function (p) { return wirespeedLoaded[p]; });
        var comparison = compare(cards);
        render(comparison);
        window.siteComparison = summary(comparison);
        status.textContent = "";
      })
      .catch(function (error) {
        status.textContent = "Could not load " + error.message + ": is it part of this site?";
        window.siteComparison = { error: error.message };
      });
  }
  window.addEventListener("hashchange", start);
  start();
})();
