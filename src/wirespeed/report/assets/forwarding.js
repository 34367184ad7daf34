/* wirespeed HTML report: the forwarding searches' charts, drawn as SVG from #ws-forwarding.
   Per cell (frame size, direction): each trial's loss ratio against its offered load.
   Both axes are logarithmic: a search's loads span from the device's limit to the link's
   (15,000 to 1,488,095 frames/s at 64 B), and what decides NDR and PDR are losses from a
   few frames in a million to 0.5 %, which a linear axis would draw as one line at zero.
   Zero loss, which a log scale cannot place, has its own line at the foot.
   Every label reaches the page through textContent, never as markup. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var REPS = ["#2563eb", "#d9480f", "#0f9d76", "#8b5cf6", "#c2255c", "#0891b2"];
  var GOALS = { NDR: "#0f9d76", PDR: "#8b5cf6" };
  var OTHER_GOAL = "#475569";
  var W = 360, H = 230, M = { l: 56, r: 12, t: 12, b: 40 };
  var charts = 0, points = 0;

  function svg(tag, attrs, parent) {
    var node = document.createElementNS(NS, tag);
    for (var k in attrs) node.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(node);
    return node;
  }
  function el(tag, cls, text, parent) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function count(v) { return Math.round(v).toLocaleString("en-US"); }
  function lossText(v) { return v === 0 ? "0" : (v * 100).toPrecision(3) + " %"; }
  function decadeText(e) { return e === 0 ? "1" : "1e" + e; }
  function loadText(v) {
    if (v >= 1e6) return +(v / 1e6).toFixed(2) + "M";
    if (v >= 1e3) return +(v / 1e3).toFixed(1) + "k";
    return String(Math.round(v));
  }
  function goalColor(name) { return GOALS[name] || OTHER_GOAL; }

  function chart(cell, host) {
    var box = el("div", "fwd-chart", null, host);
    el("h4", null, cell.title, box);
    var plot = el("div", "fwd-plot", null, box);
    var root = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img" }, plot);
    var pw = W - M.l - M.r, ph = H - M.t - M.b;

    var loads = [], lowest = 1;
    cell.reps.forEach(function (rep) {
      rep.t.forEach(function (t) { if (t[0] > 0) loads.push(t[0]); if (t[1] > 0 && t[1] < lowest) lowest = t[1]; });
      rep.bounds.forEach(function (b) { if (b[1]) loads.push(b[1]); if (b[2]) loads.push(b[2]); });
    });
    if (cell.ceiling) loads.push(cell.ceiling);
    if (cell.generator) loads.push(cell.generator);
    if (!loads.length) loads = [1, 10];
    var x0 = Math.floor(Math.log10(Math.min.apply(null, loads) * 0.9) * 4) / 4;
    var x1 = Math.ceil(Math.log10(Math.max.apply(null, loads) * 1.1) * 4) / 4;
    if (x1 <= x0) x1 = x0 + 1;
    var y0 = Math.min(-6, Math.floor(Math.log10(lowest)));
    var zeroBand = 14;  /* pixels below the log scale where zero-loss trials sit */
    var X = function (v) { return M.l + ((Math.log10(v) - x0) / (x1 - x0)) * pw; };
    var Y = function (loss) {
      if (loss <= 0) return M.t + ph;
      return M.t + (ph - zeroBand) * (-Math.log10(loss) / -y0);
    };

    var grid = svg("g", { class: "grid" }, root);
    for (var e = y0; e <= 0; e += 2) {
      var y = Y(Math.pow(10, e));
      svg("line", { x1: M.l, x2: M.l + pw, y1: y, y2: y }, grid);
      svg("text", { x: M.l - 6, y: y + 4, "text-anchor": "end", class: "tick" }, root).textContent = decadeText(e);
    }
    svg("line", { x1: M.l, x2: M.l + pw, y1: Y(0), y2: Y(0), class: "zero" }, root);
    svg("text", { x: M.l - 6, y: Y(0) + 4, "text-anchor": "end", class: "tick" }, root).textContent = "0";
    for (var d = Math.ceil(x0); d <= Math.floor(x1); d++) {
      [1, 2, 5].forEach(function (m) {
        var v = m * Math.pow(10, d);
        if (Math.log10(v) < x0 || Math.log10(v) > x1) return;
        svg("line", { x1: X(v), x2: X(v), y1: M.t, y2: M.t + ph }, grid);
        svg("text", { x: X(v), y: M.t + ph + 14, "text-anchor": "middle", class: "tick" }, root).textContent = loadText(v);
      });
    }
    var xl = svg("text", { x: M.l + pw / 2, y: H - 4, "text-anchor": "middle", class: "axis-label" }, root);
    xl.textContent = "offered load, frames/s";
    var ym = M.t + ph / 2;
    var yl = svg("text", { x: 11, y: ym, "text-anchor": "middle", class: "axis-label", transform: "rotate(-90 11 " + ym + ")" }, root);
    yl.textContent = "loss ratio";

    /* Labels drawn so far: one that would cover another moves down a line (the link's
       ceiling and the generator's limit can be a few pixels apart). */
    var labels = [];
    function covers(a, b) {
      return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    }
    function place(t) {
      var box = t.getBBox();
      for (var tries = 0; tries < 12 && labels.some(function (o) { return covers(o, box); }); tries++) {
        t.setAttribute("y", +t.getAttribute("y") + box.height);
        box = t.getBBox();
      }
      labels.push(box);
    }
    cell.goals.forEach(function (g) {
      if (g[1] <= 0) return;
      var y = Y(g[1]);
      svg("line", { x1: M.l, x2: M.l + pw, y1: y, y2: y, class: "goal-loss" }, root);
      var t = svg("text", { x: M.l + 4, y: y - 3, class: "hlabel", fill: goalColor(g[0]) }, root);
      t.textContent = g[0] + " loss " + lossText(g[1]);
      labels.push(t.getBBox());
    });
    function limit(v, cls, label) {
      if (!v) return;
      svg("line", { x1: X(v), x2: X(v), y1: M.t, y2: M.t + ph, class: "limit " + cls }, root);
      var t = svg("text", { x: X(v) - 3, y: M.t + 9, "text-anchor": "end", class: "hlabel " + cls }, root);
      t.textContent = label + " " + count(v);
      if (t.getBBox().x < M.l) {  /* a limit near the left edge: its label to its right */
        t.setAttribute("x", X(v) + 3);
        t.setAttribute("text-anchor", "start");
      }
      place(t);
    }
    limit(cell.ceiling, "ceiling", "ceiling");
    limit(cell.generator, "generator", "generator");

    cell.reps.forEach(function (rep, ri) {
      var color = REPS[ri % REPS.length];
      rep.bounds.forEach(function (b) {
        [[b[1], "lower"], [b[2], "upper"]].forEach(function (pair) {
          if (!pair[0]) return;
          var line = svg("line", { x1: X(pair[0]), x2: X(pair[0]), y1: M.t, y2: M.t + ph, class: "bound " + pair[1], stroke: goalColor(b[0]) }, root);
          svg("title", {}, line).textContent = "repetition " + rep.rep + ": " + b[0] + " " + (pair[1] === "lower" ? "bound " : "too much above ") + count(pair[0]) + " frames/s";
        });
      });
      rep.t.forEach(function (t) {
        var full = t[2] === 1;
        var dot = svg("circle", { cx: X(t[0]), cy: Y(t[1]), r: full ? 3.6 : 3, class: "pt " + (full ? "full" : "short"),
          fill: color, stroke: color }, root);
        svg("title", {}, dot).textContent = "repetition " + rep.rep + ", " + (full ? "full-length" : "short") +
          " trial: " + count(t[0]) + " frames/s offered, loss " + lossText(t[1]);
        points++;
      });
    });
    plot.setAttribute("data-drawn", "1");
    charts++;
  }

  var tables = JSON.parse(document.getElementById("ws-forwarding").textContent);
  try {
    tables.forEach(function (table) {
      var host = document.getElementById("forwarding-charts-" + table.table);
      if (!host) return;
      table.cells.forEach(function (cell) { chart(cell, host); });
      if (table.cells.length) {
        var key = el("div", "legend static", null, host.parentNode);
        [["\u25cf", "full-length trial"], ["\u25cb", "short trial"], ["\u2502", "bound (the figure)"],
         ["\u2506", "too much loss above"], ["\u2504", "ceiling / generator"]].forEach(function (item) {
          var lg = el("span", "lg", null, key);
          el("span", null, item[0] + " " + item[1], lg);
        });
      }
    });
    document.documentElement.setAttribute("data-forwarding-charts", String(charts));
    document.documentElement.setAttribute("data-forwarding-points", String(points));
    document.documentElement.setAttribute("data-forwarding", "ready");
  } catch (error) {
    document.documentElement.setAttribute("data-forwarding", "error");
    throw error;
  }
})();
