/* wirespeed timeline: stacked lanes on one time axis (report/timeline.py builds the data).
   Each figure.ws-timeline holds its data in a <script type="application/json">; this
   script draws every figure not drawn yet, so a page may carry it more than once.
   Text from the data is put on the page with textContent only. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#2563eb", "#d9480f", "#0f9d76", "#8b5cf6", "#c2255c", "#0891b2", "#a16207", "#475569"];
  var SPAN_COLOURS = ["#f59e0b", "#dc2626", "#7c3aed", "#0891b2", "#65a30d"];
  var LANE_H = 96, GAP = 22, LEFT = 64, RIGHT = 14, TOP = 6, MARKS_H = 26, AXIS_H = 26;

  if (window.wsTimeline) { window.wsTimeline.drawAll(); return; }

  function el(tag, attrs, parent, text) {
    var node = document.createElementNS(NS, tag);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(tag, cls, parent, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function clock(seconds, span) {
    /* 95 s -> "1:35"; a day -> "23:59:00"; under a minute of span: seconds with decimals. */
    if (span < 60) return (Math.round(seconds * 1000) / 1000) + " s";
    var sign = seconds < 0 ? "-" : "";
    var s = Math.abs(seconds), h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), r = s % 60;
    var sec = span < 600 ? r.toFixed(1) : String(Math.floor(r));
    if (Number(sec) < 10) sec = "0" + sec;
    return sign + (h ? h + ":" + (m < 10 ? "0" : "") + m : String(m)) + ":" + sec;
  }

  function niceStep(range, count) {
    var raw = range / Math.max(count, 1), mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var steps = [1, 2, 5, 10], timeSteps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600];
    if (raw >= 1) {
      for (var i = 0; i < timeSteps.length; i++) if (timeSteps[i] >= raw) return timeSteps[i];
      return Math.ceil(raw / 3600) * 3600;
    }
    for (var j = 0; j < steps.length; j++) if (steps[j] * mag >= raw) return steps[j] * mag;
    return 10 * mag;
  }

  function level(series, from, to, start, end, pixels) {
    /* The coarsest level whose slices are no wider than a pixel of the visible span, else
       the finest kept. */
    var levels = series.levels, want = (to - from) / pixels;
    for (var i = 0; i < levels.length; i++) {
      var lv = levels[i];
      if (!lv.n || (end - start) / lv.n <= want) return lv;
    }
    return levels[levels.length - 1];
  }

  function visible(lv, from, to, start, end) {
    /* [x (s), low, high] of the visible part of a level; null breaks the line. */
    var out = [], i, n;
    if (lv.n) {
      var width = (end - start) / lv.n, lo = lv.lo, hi = lv.hi || lv.lo;
      var first = Math.max(0, Math.floor((from - start) / width) - 1);
      var last = Math.min(lv.n - 1, Math.ceil((to - start) / width) + 1);
      for (i = first; i <= last; i++) {
        out.push(lo[i] === null ? null : [start + (i + 0.5) * width, lo[i], hi[i]]);
      }
      return out;
    }
    var t = lv.t, v = lv.v, a = 0, b = t.length;
    while (a < b) { var mid = (a + b) >> 1; if (t[mid] < from) a = mid + 1; else b = mid; }
    for (i = Math.max(a - 1, 0), n = t.length; i < n; i++) {
      out.push(v[i] === null ? null : [t[i], v[i], v[i]]);
      if (t[i] > to) break;
    }
    return out;
  }

  function Chart(figure, data) {
    this.figure = figure;
    this.data = data;
    this.from = data.start;
    this.to = data.end;
    this.hidden = {};
    var bar = html("div", "ws-tl-bar", figure);
    var reset = html("button", "", bar, "whole span");
    reset.type = "button";
    this.range = html("span", "ws-tl-range", bar);
    html("span", "ws-tl-help", bar, "drag or wheel to zoom, double-click to zoom out");
    this.legend = html("div", "ws-tl-legend", figure);
    this.box = html("div", "ws-tl-plot", figure);
    this.tip = html("div", "ws-tl-tip", this.box);
    this.tip.style.display = "none";
    var self = this;
    reset.addEventListener("click", function () { self.zoom(data.start, data.end); });
    this.buildLegend();
    this.draw();
    this.listen();
  }

  Chart.prototype.colours = function () {
    var seen = {}, colours = [], k = 0;
    this.data.lanes.forEach(function (lane, li) {
      colours.push(lane.series.map(function (s) {
        if (!(s.label in seen)) seen[s.label] = PALETTE[k++ % PALETTE.length];
        return seen[s.label];
      }));
    });
    return colours;
  };

  Chart.prototype.buildLegend = function () {
    var self = this, colours = this.colours();
    this.colour = colours;
    this.data.lanes.forEach(function (lane, li) {
      lane.series.forEach(function (s, si) {
        var key = li + ":" + si;
        var item = html("button", "ws-tl-key", self.legend);
        item.type = "button";
        html("span", "sw", item).style.background = colours[li][si];
        html("span", "", item, lane.title + ": " + s.label);
        item.addEventListener("click", function () {
          self.hidden[key] = !self.hidden[key];
          item.classList.toggle("off", !!self.hidden[key]);
          self.draw();
        });
      });
    });
    var kinds = {};
    this.data.spans.forEach(function (s) { kinds[s[3]] = true; });
    Object.keys(kinds).forEach(function (kind) {
      var item = html("span", "ws-tl-key", self.legend);
      html("span", "sw", item).style.background = self.spanColour(kind);
      html("span", "", item, kind || "interval");
    });
  };

  Chart.prototype.spanColour = function (kind) {
    var kinds = [];
    this.data.spans.forEach(function (s) { if (kinds.indexOf(s[3]) < 0) kinds.push(s[3]); });
    return SPAN_COLOURS[Math.max(0, kinds.indexOf(kind)) % SPAN_COLOURS.length];
  };

  Chart.prototype.x = function (t) {
    return LEFT + (t - this.from) / (this.to - this.from) * this.plotW;
  };

  Chart.prototype.t = function (x) {
    return this.from + (x - LEFT) / this.plotW * (this.to - this.from);
  };

  Chart.prototype.draw = function () {
    var started = performance.now();
    var data = this.data, self = this;
    var width = Math.max(this.box.clientWidth || 0, 320);
    this.plotW = width - LEFT - RIGHT;
    var lanes = data.lanes.length, hasMarks = data.marks.length > 0;
    /* Lanes (if any), then the events' strip, then the time axis. */
    var plotTop = lanes ? TOP + GAP - 6 : TOP;
    var plotBottom = lanes ? TOP - 6 + lanes * (LANE_H + GAP) : TOP + (hasMarks ? 0 : 14);
    var spanBottom = lanes ? plotBottom : plotBottom + (hasMarks ? MARKS_H : 0);
    var height = plotBottom + (hasMarks ? MARKS_H : 0) + AXIS_H;
    if (this.svg) this.box.removeChild(this.svg);
    var svg = el("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img", "class": "ws-tl-svg" });
    this.box.insertBefore(svg, this.tip);
    this.svg = svg;
    var clipId = "ws-tl-clip-" + Math.random().toString(36).slice(2);
    var clip = el("clipPath", { id: clipId }, el("defs", {}, svg));
    el("rect", { x: LEFT, y: 0, width: this.plotW, height: height }, clip);
    this.rows = [];

    data.lanes.forEach(function (lane, li) {
      var y0 = TOP + GAP - 6 + li * (LANE_H + GAP), g = el("g", { "class": "ws-tl-lane", "data-title": lane.title }, svg);
      var drawn = [], low = Infinity, high = -Infinity;
      lane.series.forEach(function (s, si) {
        if (self.hidden[li + ":" + si]) return;
        var lv = level(s, self.from, self.to, data.start, data.end, self.plotW);
        var pts = visible(lv, self.from, self.to, data.start, data.end);
        pts.forEach(function (p) {
          if (p === null) return;
          if (p[1] < low) low = p[1];
          if (p[2] > high) high = p[2];
        });
        drawn.push({ pts: pts, colour: self.colour[li][si], label: s.label, exact: !lv.n });
      });
      if (low === Infinity) { low = 0; high = 1; }
      if (low > 0 && low < high * 0.5) low = 0;
      if (high === low) { high = low + 1; }
      var pad = (high - low) * 0.06;
      var top = high + pad, bottom = low === 0 ? 0 : low - pad;
      var Y = function (v) { return y0 + LANE_H - (v - bottom) / (top - bottom) * LANE_H; };
      el("rect", { x: LEFT, y: y0, width: self.plotW, height: LANE_H, "class": "ws-tl-bg" }, g);
      [bottom, (bottom + top) / 2, top].forEach(function (v, k) {
        el("line", { x1: LEFT, x2: LEFT + self.plotW, y1: Y(v), y2: Y(v), "class": "ws-tl-grid" }, g);
        el("text", { x: LEFT - 6, y: Y(v) + (k === 2 ? 9 : k === 0 ? -2 : 4), "text-anchor": "end", "class": "ws-tl-tick" }, g,
          String(Number(v.toPrecision(3))));
      });
      el("text", { x: LEFT, y: y0 - 4, "class": "ws-tl-title" }, g, lane.title + (lane.unit ? ", " + lane.unit : ""));
      var body = el("g", { "clip-path": "url(#" + clipId + ")" }, g);
      drawn.forEach(function (d) {
        /* One filled outline per unbroken run: the highs forward, the lows back. Where
           low equals high it is a line; where they differ, the band between. */
        var runs = [], run = [];
        d.pts.forEach(function (p) { if (p === null) { if (run.length) runs.push(run); run = []; } else run.push(p); });
        if (run.length) runs.push(run);
        runs.forEach(function (r) {
          var up = [], down = [];
          for (var i = 0; i < r.length; i++) {
            var x = self.x(r[i][0]).toFixed(1);
            up.push(x + "," + Y(r[i][2]).toFixed(1));
            down.push(x + "," + Y(r[i][1]).toFixed(1));
          }
          if (r.length === 1) {
            el("circle", { cx: self.x(r[0][0]), cy: Y(r[0][2]), r: 2, fill: d.colour }, body);
            return;
          }
          el("path", {
            d: "M" + up.join("L") + "L" + down.reverse().join("L") + "Z",
            fill: d.colour, "fill-opacity": 0.35, stroke: d.colour, "stroke-width": 1.2,
            "stroke-linejoin": "round", "class": "ws-tl-series"
          }, body);
        });
      });
      self.rows.push({ lane: lane, y0: y0, drawn: drawn, Y: Y });
    });

    var spanLayer = el("g", { "class": "ws-tl-spans", "clip-path": "url(#" + clipId + ")" }, svg);
    data.spans.forEach(function (s) {
      if (s[1] < self.from || s[0] > self.to) return;
      var x0 = self.x(s[0]), x1 = self.x(s[1]);
      var w = Math.max(x1 - x0, 1.5);  /* narrower than a pixel: still seen */
      var r = el("rect", { x: x0, y: plotTop, width: w, height: spanBottom - plotTop, fill: self.spanColour(s[3]), "fill-opacity": 0.16, "class": "ws-tl-span" }, spanLayer);
      el("title", {}, r, s[2]);
    });

    var axisY = plotBottom;
    if (hasMarks) {
      var my = plotBottom + 6, mg = el("g", { "class": "ws-tl-marks", "clip-path": "url(#" + clipId + ")" }, svg);
      el("text", { x: LEFT - 6, y: my + 12, "text-anchor": "end", "class": "ws-tl-tick" }, svg, "events");
      data.marks.forEach(function (m) {
        if (m[0] < self.from || m[0] > self.to) return;
        var x = self.x(m[0]);
        var tick = el("line", { x1: x, x2: x, y1: my, y2: my + MARKS_H - 8, "class": "ws-tl-mark" }, mg);
        el("title", {}, tick, m[1] + (m[2] ? ": " + m[2] : ""));
      });
      axisY = plotBottom + MARKS_H;
    }
    var axis = el("g", { "class": "ws-tl-axis" }, svg);
    el("line", { x1: LEFT, x2: LEFT + this.plotW, y1: axisY, y2: axisY, "class": "ws-tl-axisline" }, axis);
    var span = this.to - this.from, step = niceStep(span, Math.max(2, Math.floor(this.plotW / 90)));
    for (var tick = Math.ceil(this.from / step) * step; tick <= this.to; tick += step) {
      var tx = this.x(tick);
      el("line", { x1: tx, x2: tx, y1: axisY, y2: axisY + 4, "class": "ws-tl-axisline" }, axis);
      el("text", { x: tx, y: axisY + 16, "text-anchor": "middle", "class": "ws-tl-tick" }, axis, clock(tick, span));
    }
    this.cursor = el("line", { y1: plotTop, y2: axisY, "class": "ws-tl-cursor", visibility: "hidden" }, svg);
    this.band = el("rect", { y: plotTop, height: axisY - plotTop, "class": "ws-tl-select", visibility: "hidden" }, svg);
    this.axisY = axisY;
    this.range.textContent = clock(this.from, span) + " \u2013 " + clock(this.to, span);
    this.figure.setAttribute("data-lanes", String(lanes));
    this.figure.setAttribute("data-drawn", String(Math.round((performance.now() - started) * 10) / 10));
  };

  Chart.prototype.zoom = function (from, to) {
    var d = this.data, least = (d.end - d.start) / 1e6;
    from = Math.max(d.start, from); to = Math.min(d.end, to);
    if (to - from < least) return;
    this.from = from; this.to = to;
    this.draw();
  };

  Chart.prototype.readout = function (x, y) {
    var t = this.t(x), span = this.to - this.from, lines = [clock(t, span)];
    var self = this;
    this.rows.forEach(function (row) {
      row.drawn.forEach(function (d) {
        var best = null, bestGap = Infinity, real = d.pts.filter(function (p) { return p !== null; });
        real.forEach(function (p) { if (Math.abs(p[0] - t) < bestGap) { bestGap = Math.abs(p[0] - t); best = p; } });
        if (best === null) return;
        /* Sparse readings (one a second over a few seconds) still answer between them;
           a gap in the data does not. */
        var spacing = real.length > 1 ? (self.x(real[real.length - 1][0]) - self.x(real[0][0])) / (real.length - 1) : 0;
        if (Math.abs(self.x(best[0]) - x) > Math.max(12, spacing * 0.75)) return;
        var digits = row.lane.digits, fmt = function (v) { return Number(v.toFixed(Math.max(digits, 0))); };
        var value = best[1] === best[2] ? String(fmt(best[1])) : fmt(best[1]) + "\u2013" + fmt(best[2]);
        lines.push(row.lane.title + " " + d.label + ": " + value + (row.lane.unit ? " " + row.lane.unit : ""));
      });
    });
    this.data.spans.forEach(function (s) {
      var x0 = self.x(s[0]), x1 = Math.max(self.x(s[1]), x0 + 1.5);
      if (x >= x0 - 2 && x <= x1 + 2) lines.push(s[2]);
    });
    var near = 0;
    this.data.marks.forEach(function (m) {
      if (Math.abs(self.x(m[0]) - x) <= 3 && near < 5) { near++; lines.push(clock(m[0], span) + " " + m[1] + (m[2] ? ": " + m[2] : "")); }
    });
    this.tip.textContent = "";
    lines.forEach(function (line) { html("div", "", self.tip, line); });
    this.tip.style.display = "block";
    var left = Math.min(x + 14, this.box.clientWidth - this.tip.offsetWidth - 4);
    this.tip.style.left = Math.max(left, 0) + "px";
    this.tip.style.top = Math.max(y - 10, 0) + "px";
  };

  Chart.prototype.listen = function () {
    var self = this, box = this.box, dragFrom = null;
    function localX(event) { return event.clientX - self.svg.getBoundingClientRect().left; }
    function clampX(x) { return Math.max(LEFT, Math.min(LEFT + self.plotW, x)); }
    box.addEventListener("mousedown", function (event) {
      if (event.button !== 0) return;
      dragFrom = clampX(localX(event));
      event.preventDefault();
    });
    box.addEventListener("mousemove", function (event) {
      var x = localX(event), y = event.clientY - self.svg.getBoundingClientRect().top;
      if (x < LEFT || x > LEFT + self.plotW) { self.cursor.setAttribute("visibility", "hidden"); self.tip.style.display = "none"; return; }
      self.cursor.setAttribute("x1", x); self.cursor.setAttribute("x2", x);
      self.cursor.setAttribute("visibility", "visible");
      if (dragFrom !== null) {
        var a = Math.min(dragFrom, clampX(x)), b = Math.max(dragFrom, clampX(x));
        self.band.setAttribute("x", a); self.band.setAttribute("width", b - a);
        self.band.setAttribute("visibility", "visible");
      }
      self.readout(x, y);
    });
    box.addEventListener("mouseleave", function () {
      self.cursor.setAttribute("visibility", "hidden"); self.tip.style.display = "none";
    });
    window.addEventListener("mouseup", function (event) {
      if (dragFrom === null) return;
      var x = clampX(localX(event)), a = Math.min(dragFrom, x), b = Math.max(dragFrom, x);
      dragFrom = null;
      self.band.setAttribute("visibility", "hidden");
      if (b - a >= 4) self.zoom(self.t(a), self.t(b));
    });
    box.addEventListener("dblclick", function () { self.zoom(self.data.start, self.data.end); });
    box.addEventListener("wheel", function (event) {
      var x = localX(event);
      if (x < LEFT || x > LEFT + self.plotW || !event.deltaY) return;
      event.preventDefault();
      var at = self.t(x), factor = event.deltaY < 0 ? 0.8 : 1.25;
      var from = at - (at - self.from) * factor, to = at + (self.to - at) * factor;
      if (to - from >= self.data.end - self.data.start) { from = self.data.start; to = self.data.end; }
      else if (from < self.data.start) { to += self.data.start - from; from = self.data.start; }
      else if (to > self.data.end) { from -= to - self.data.end; to = self.data.end; }
      self.zoom(from, to);
    }, { passive: false });
    var width = box.clientWidth;
    window.addEventListener("resize", function () {
      if (box.clientWidth !== width && box.clientWidth > 0) { width = box.clientWidth; self.draw(); }
    });
  };

  function drawFigure(figure) {
    if (figure.getAttribute("data-ready") === "true") return figure.wsChart;
    var block = figure.querySelector("script.ws-timeline-data");
    if (!block) return null;
    var chart = new Chart(figure, JSON.parse(block.textContent));
    figure.wsChart = chart;
    figure.setAttribute("data-ready", "true");
    /* When it was drawn, on the page's clock (ms since navigation): its load time. */
    figure.setAttribute("data-drawn-at", String(Math.round(performance.now() * 10) / 10));
    return chart;
  }

  function bindPickers() {
    /* A select.ws-tl-pick shows one .ws-tl-choice of its section at a time: the
       others are drawn only when chosen. */
    var pickers = document.querySelectorAll("select.ws-tl-pick");
    for (var i = 0; i < pickers.length; i++) {
      var pick = pickers[i];
      if (pick.getAttribute("data-bound")) continue;
      pick.setAttribute("data-bound", "true");
      pick.addEventListener("change", function (event) {
        var select = event.target, section = select.closest("section") || document;
        var choices = section.querySelectorAll(".ws-tl-choice");
        for (var k = 0; k < choices.length; k++) choices[k].hidden = String(k) !== select.value;
        var shown = choices[Number(select.value)];
        if (shown) {
          var figure = shown.querySelector("figure.ws-timeline");
          if (figure) drawFigure(figure);
        }
      });
    }
  }

  function drawAll() {
    bindPickers();
    var figures = document.querySelectorAll("figure.ws-timeline");
    for (var i = 0; i < figures.length; i++) {
      /* A figure in a hidden part of the page (not laid out) is drawn when shown. */
      if (figures[i].offsetParent !== null || figures[i].getClientRects().length) drawFigure(figures[i]);
    }
    document.documentElement.setAttribute("data-timelines", String(figures.length));
  }

  window.wsTimeline = { drawAll: drawAll, drawFigure: drawFigure, Chart: Chart };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", drawAll);
  else drawAll();
})();
