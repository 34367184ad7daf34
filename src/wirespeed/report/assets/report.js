/* wirespeed HTML report: plots drawn as SVG from the JSON block #ws-data.
   Every label reaches the page through textContent, never as markup. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("ws-data").textContent);
  var FLOW = { up: "#2563eb", down: "#d9480f" };
  var STREAMS = {
    up: ["#74a7f7", "#9cc0fa", "#4f8ff3", "#b8d1fb"],
    down: ["#f59f6b", "#f8bd95", "#ef7d3c", "#fad3b8"]
  };
  var ARROW = { up: "\u2191", down: "\u2193" };
  var PALETTE = ["#2563eb", "#0f9d76", "#d9480f", "#8b5cf6", "#c2255c", "#0891b2", "#a16207", "#475569"];
  var CPU = { user: "#60a5fa", system: "#f59e0b", softirq: "#dc2626" };
  var drawn = 0;
  var redraws = [];

  function svg(tag, attrs, parent) {
    var node = document.createElementNS(NS, tag);
    for (var k in attrs) node.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(node);
    return node;
  }
  function html(tag, cls, text, parent) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function fmt(v) {
    if (v === null || v === undefined) return "\u2013";
    var a = Math.abs(v);
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    return v.toFixed(2);
  }
  /* One decimal, as in LIMITS.md: 941.5 is the ceiling, 941 a measurement below it. The
     data holds it rounded so already (text.ceiling_mbit), as the tables show it. */
  function ceil1(v) { return v.toFixed(1); }
  function tickText(v) { return String(+v.toFixed(6)); }
  function ticks(max, count) {
    if (!(max > 0)) return [0, 1];
    var raw = max / count, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 2.5, 5, 10].map(function (m) { return m * mag; })
      .filter(function (s) { return s >= raw; })[0];
    var out = [];
    for (var v = 0; v <= max + step * 1e-9; v += step) out.push(+v.toFixed(10));
    if (out[out.length - 1] < max) out.push(+(out[out.length - 1] + step).toFixed(10));
    return out;
  }

  var tip = html("div", "tip", null, document.body);
  function showTip(event, lines) {
    tip.textContent = "";
    lines.forEach(function (line, i) {
      var row = html("div", i === 0 ? "tip-head" : "tip-row", null, tip);
      if (line.color) html("span", "sw", null, row).style.background = line.color;
      html("span", null, line.text, row);
    });
    tip.style.display = "block";
    var x = event.clientX + 14, y = event.clientY + 14;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    if (x + w > window.innerWidth - 8) x = event.clientX - w - 14;
    if (y + h > window.innerHeight - 8) y = event.clientY - h - 14;
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function hideTip() { tip.style.display = "none"; }

  function legend(host, items, hidden, redraw) {
    var box = html("div", "legend", null, host);
    items.forEach(function (item) {
      var b = html("button", "lg" + (hidden[item.name] ? " off" : ""), null, box);
      b.type = "button";
      b.title = "show or hide";
      var sw = html("span", "sw" + (item.dash ? " dash" : ""), null, b);
      sw.style.background = item.color;
      html("span", null, item.name, b);
      b.addEventListener("click", function () {
        hidden[item.name] = !hidden[item.name];
        redraw();
      });
    });
  }

  function frame(host, height, ylabel, xlabel) {
    var width = Math.max(host.clientWidth || 0, 280);
    var m = { l: 62, r: 18, t: 14, b: xlabel ? 38 : 50 };
    var root = svg("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img" }, host);
    if (ylabel) {
      var yl = svg("text", { x: 11, y: m.t + (height - m.t - m.b) / 2, class: "axis-label",
        transform: "rotate(-90 11 " + (m.t + (height - m.t - m.b) / 2) + ")", "text-anchor": "middle" }, root);
      yl.textContent = ylabel;
    }
    if (xlabel) {
      var xl = svg("text", { x: m.l + (width - m.l - m.r) / 2, y: height - 4, class: "axis-label", "text-anchor": "middle" }, root);
      xl.textContent = xlabel;
    }
    return { svg: root, w: width, h: height, m: m, pw: width - m.l - m.r, ph: height - m.t - m.b };
  }

  function yAxis(f, ymax) {
    var ts = ticks(ymax, 5), top = ts[ts.length - 1];
    var g = svg("g", { class: "grid" }, f.svg);
    ts.forEach(function (v) {
      var y = f.m.t + f.ph - (v / top) * f.ph;
      svg("line", { x1: f.m.l, x2: f.m.l + f.pw, y1: y, y2: y }, g);
      var t = svg("text", { x: f.m.l - 6, y: y + 4, "text-anchor": "end", class: "tick" }, f.svg);
      t.textContent = tickText(v);
    });
    return function (v) { return f.m.t + f.ph - (v / top) * f.ph; };
  }

  /* Lines over time, or stacked areas (opt.stack: every series on the same x). */
  function lineChart(host, opt) {
    var hidden = {};
    function draw() {
      host.textContent = "";
      var f = frame(host, opt.height || 260, opt.ylabel, opt.xlabel);
      var shown = opt.series.filter(function (s) { return !hidden[s.name] && s.x.length; });
      var xmax = opt.xmax || 0, ymax = 0;
      opt.series.forEach(function (s) { s.x.forEach(function (x) { if (x > xmax) xmax = x; }); });
      if (!(xmax > 0)) xmax = 1;
      var tops = [];
      if (opt.stack) {
        var n = shown.length ? shown[0].y.length : 0;
        for (var i = 0; i < n; i++) {
          var sum = 0;
          shown.forEach(function (s) { sum += s.y[i] || 0; });
          tops.push(sum);
          if (sum > ymax) ymax = sum;
        }
      } else {
        shown.forEach(function (s) { s.y.forEach(function (v) { if (v > ymax) ymax = v; }); });
      }
      (opt.hlines || []).forEach(function (l) { if (!hidden[l.name] && l.y > ymax) ymax = l.y; });
      if (opt.ymax && opt.ymax > ymax) ymax = opt.ymax;
      var Y = yAxis(f, opt.yfixed ? Math.max(ymax, opt.yfixed) : (ymax || 1) * 1.04);
      var X = function (x) { return f.m.l + (x / xmax) * f.pw; };
      ticks(xmax, Math.max(2, Math.floor(f.pw / 70))).forEach(function (v) {
        if (v > xmax * 1.0001) return;
        var t = svg("text", { x: X(v), y: f.m.t + f.ph + 16, "text-anchor": "middle", class: "tick" }, f.svg);
        t.textContent = tickText(v);
      });
      svg("line", { x1: f.m.l, x2: f.m.l + f.pw, y1: f.m.t + f.ph, y2: f.m.t + f.ph, class: "axis" }, f.svg);
      if (opt.stack) {
        var base = shown.length ? shown[0].y.map(function () { return 0; }) : [];
        shown.forEach(function (s) {
          var up = s.y.map(function (v, i) { return base[i] + (v || 0); });
          var pts = s.x.map(function (x, i) { return X(x) + "," + Y(up[i]); });
          for (var i = s.x.length - 1; i >= 0; i--) pts.push(X(s.x[i]) + "," + Y(base[i]));
          svg("polygon", { points: pts.join(" "), fill: s.color, "fill-opacity": 0.85, stroke: s.color, "stroke-width": 0.5 }, f.svg);
          base = up;
        });
      } else {
        shown.forEach(function (s) {
          var pts = s.x.map(function (x, i) { return X(x).toFixed(1) + "," + Y(s.y[i]).toFixed(1); });
          var attrs = { points: pts.join(" "), fill: "none", stroke: s.color, "stroke-width": s.width || 1.5, "stroke-linejoin": "round" };
          if (s.dash) attrs["stroke-dasharray"] = s.dash;
          svg("polyline", attrs, f.svg);
          if (s.x.length === 1) svg("circle", { cx: X(s.x[0]), cy: Y(s.y[0]), r: 3, fill: s.color }, f.svg);
        });
      }
      (opt.hlines || []).forEach(function (l) {
        if (hidden[l.name]) return;
        var y = Y(l.y);
        svg("line", { x1: f.m.l, x2: f.m.l + f.pw, y1: y, y2: y, stroke: l.color, "stroke-width": l.width || 1.5, "stroke-dasharray": l.dash || "6 4" }, f.svg);
        if (l.label) {
          var t = svg("text", { x: f.m.l + f.pw - 4, y: y - 5, "text-anchor": "end", class: "hlabel", fill: l.color }, f.svg);
          t.textContent = l.label;
        }
      });
      if (opt.message) {
        /* Markup over the plot, not SVG text: a failure's reason is as long as the tool
           made it, and only markup wraps. */
        var msg = html("div", "plot-message", opt.message, host);
        msg.style.left = f.m.l + "px";
        msg.style.width = f.pw + "px";
        msg.style.top = f.m.t + f.ph / 2 + "px";
      }
      var cross = svg("line", { y1: f.m.t, y2: f.m.t + f.ph, class: "cross", visibility: "hidden" }, f.svg);
      var over = svg("rect", { x: f.m.l, y: f.m.t, width: f.pw, height: f.ph, fill: "transparent" }, f.svg);
      over.addEventListener("mousemove", function (event) {
        var box = f.svg.getBoundingClientRect();
        var xv = ((event.clientX - box.left - f.m.l) / f.pw) * xmax;
        var lines = [], at = null;
        shown.forEach(function (s) {
          var best = -1, dist = Infinity;
          s.x.forEach(function (x, i) { var d = Math.abs(x - xv); if (d < dist) { dist = d; best = i; } });
          if (best < 0) return;
          if (at === null) at = s.x[best];
          lines.push({ color: s.color, text: s.name + ": " + fmt(s.y[best]) + (opt.unit ? " " + opt.unit : "") });
        });
        if (opt.stack && lines.length) {
          var i0 = shown[0].x.indexOf(at), total = 0;
          shown.forEach(function (s) { total += s.y[i0] || 0; });
          lines.push({ text: "total: " + fmt(total) + (opt.unit ? " " + opt.unit : "") });
        }
        (opt.hlines || []).forEach(function (l) {
          if (!hidden[l.name]) lines.push({ color: l.color, text: l.name + ": " + (l.text || fmt(l.y)) + (opt.unit ? " " + opt.unit : "") });
        });
        if (!lines.length) return hideTip();
        if (at !== null) {
          cross.setAttribute("x1", X(at)); cross.setAttribute("x2", X(at));
          cross.setAttribute("visibility", "visible");
          lines.unshift({ text: (opt.xname || "t") + " = " + fmt(at) + " s" });
        } else {
          lines.unshift({ text: opt.title || "" });
        }
        showTip(event, lines);
      });
      over.addEventListener("mouseleave", function () { cross.setAttribute("visibility", "hidden"); hideTip(); });
      var items = opt.series.map(function (s) { return { name: s.name, color: s.color }; })
        .concat((opt.hlines || []).map(function (l) { return { name: l.name, color: l.color, dash: true }; }));
      if (opt.legend !== false) legend(host, items, hidden, draw);
      host.setAttribute("data-drawn", "1");
    }
    draw();
    redraws.push(function () { if (host.isConnected) draw(); });
    drawn++;
  }

  /* Grouped bars with whiskers and ceiling marks; or one stacked bar per group. */
  function barChart(host, opt) {
    var hidden = {};
    function draw() {
      host.textContent = "";
      var f = frame(host, opt.height || 300, opt.ylabel, null);
      var ymax = 0;
      opt.groups.forEach(function (g) {
        var stackTop = 0;
        g.bars.forEach(function (b) {
          if (hidden[b.name]) return;
          if (opt.stacked) { stackTop += b.value || 0; return; }
          [b.value, b.high, b.ceiling].forEach(function (v) { if (v > ymax) ymax = v; });
        });
        if (stackTop > ymax) ymax = stackTop;
      });
      var Y = yAxis(f, (ymax || 1) * 1.04);
      svg("line", { x1: f.m.l, x2: f.m.l + f.pw, y1: f.m.t + f.ph, y2: f.m.t + f.ph, class: "axis" }, f.svg);
      var gw = f.pw / Math.max(opt.groups.length, 1);
      opt.groups.forEach(function (g, gi) {
        var bars = g.bars.filter(function (b) { return !hidden[b.name]; });
        var gx = f.m.l + gi * gw;
        var label = svg("text", { x: gx + gw / 2, y: f.m.t + f.ph + 16, "text-anchor": "middle", class: "tick glabel" }, f.svg);
        var chars = Math.max(4, Math.floor(gw / 6.5));
        label.textContent = g.label.length > chars ? g.label.slice(0, chars - 1) + "\u2026" : g.label;
        svg("title", {}, label).textContent = g.label;
        if (g.sub) {
          var sub = svg("text", { x: gx + gw / 2, y: f.m.t + f.ph + 30, "text-anchor": "middle", class: "tick sub" }, f.svg);
          sub.textContent = g.sub;
        }
        var inner = gw * 0.8, bw = opt.stacked ? Math.min(inner, 56) : Math.min(inner / Math.max(bars.length, 1), 64);
        var x0 = gx + (gw - (opt.stacked ? bw : bw * bars.length)) / 2;
        var base = 0;
        bars.forEach(function (b, bi) {
          var x = opt.stacked ? x0 : x0 + bi * bw, pad = Math.min(3, bw * 0.12);
          var lo = opt.stacked ? base : 0, hi = lo + (b.value || 0);
          if (opt.stacked) base = hi;
          var rect = svg("rect", { x: x + pad / 2, y: Y(hi), width: Math.max(bw - pad, 1), height: Math.max(Y(lo) - Y(hi), 0),
            fill: b.color, rx: opt.stacked ? 0 : 2, class: "bar" + (b.value === null ? " missing" : "") }, f.svg);
          var cx = x + bw / 2;
          if (!opt.stacked && b.low !== null && b.high !== null && b.low !== undefined) {
            var w = svg("g", { class: "whisker" }, f.svg);
            svg("line", { x1: cx, x2: cx, y1: Y(b.low), y2: Y(b.high) }, w);
            svg("line", { x1: cx - bw * 0.18, x2: cx + bw * 0.18, y1: Y(b.low), y2: Y(b.low) }, w);
            svg("line", { x1: cx - bw * 0.18, x2: cx + bw * 0.18, y1: Y(b.high), y2: Y(b.high) }, w);
          }
          if (!opt.stacked && b.ceiling) {
            svg("line", { x1: x, x2: x + bw, y1: Y(b.ceiling), y2: Y(b.ceiling), class: "ceil" }, f.svg);
          }
          if (!opt.stacked && b.value === null) {
            var fx = svg("text", { x: cx, y: f.m.t + f.ph - 6, "text-anchor": "middle", class: "failed" }, f.svg);
            fx.textContent = "\u00d7";
          }
          rect.addEventListener("mousemove", function (event) {
            var lines = [{ text: g.label + (g.sub ? " \u00b7 " + g.sub : "") }, { color: b.color, text: b.name + ": " + fmt(b.value) + (opt.unit ? " " + opt.unit : "") }];
            (b.extra || []).forEach(function (t) { lines.push({ text: t }); });
            showTip(event, lines);
          });
          rect.addEventListener("mouseleave", hideTip);
        });
      });
      var seen = {}, items = [];
      opt.groups.forEach(function (g) {
        g.bars.forEach(function (b) { if (!seen[b.name]) { seen[b.name] = 1; items.push({ name: b.name, color: b.color }); } });
      });
      legend(host, items, hidden, draw);
      host.setAttribute("data-drawn", "1");
    }
    draw();
    redraws.push(function () { if (host.isConnected) draw(); });
    drawn++;
  }

  function comparison() {
    var host = document.getElementById("bars");
    if (!host || !data.bars.length) return;
    var groups = data.bars.map(function (g) {
      return {
        label: g.test,
        bars: g.bars.map(function (b) {
          var name = data.columns[b.column] + (b.flow === "down" ? " " + ARROW.down : "");
          var extra = [ARROW[b.flow] + " " + (b.flow === "up" ? "client to server" : "server to client")];
          if (b.n >= 2 && b.low !== null) extra.push("95 % interval of the median: " + fmt(b.low) + " \u2026 " + fmt(b.high));
          extra.push("n = " + b.n + (b.n ? ": " + b.values.map(fmt).join(", ") : ""));
          extra.push(b.ceiling ? "ceiling: " + ceil1(b.ceiling) + " Mbit/s" : "no ceiling: link rate unknown");
          if (b.failed) extra.push(b.failed + " failed trial" + (b.failed > 1 ? "s" : ""));
          var base = PALETTE[b.column % PALETTE.length];
          return { name: name, color: b.flow === "down" ? shade(base) : base,
            value: b.median, low: b.n >= 2 ? b.low : null, high: b.n >= 2 ? b.high : null, ceiling: b.ceiling, extra: extra };
        })
      };
    });
    barChart(host, { groups: groups, ylabel: "goodput, Mbit/s", unit: "Mbit/s", height: 320 });
  }
  function shade(hex) {
    var n = parseInt(hex.slice(1), 16), r = (n >> 16) & 255, g = (n >> 8) & 255, b = n & 255;
    var mix = function (c) { return Math.round(c + (255 - c) * 0.45); };
    return "rgb(" + mix(r) + "," + mix(g) + "," + mix(b) + ")";
  }

  /* Interval series travel as whole numbers: times in ms (evenly spaced ones as the
     first and the step), rates in 10 kbit/s. */
  function seconds(s) {
    if (s.t) return s.t.map(function (ms) { return ms / 1000; });
    return s.v.map(function (_, i) { return (s.t0 + i * s.dt) / 1000; });
  }
  function mbits(v) { return v.map(function (r) { return r / 100; }); }

  function throughput(trial, host) {
    var series = [], hlines = [], any = false;
    trial.flows.forEach(function (fl) {
      var arrow = ARROW[fl.flow] + " " + fl.flow;
      fl.streams.forEach(function (s, i) {
        any = true;
        series.push({ name: arrow + " stream " + s.id, color: STREAMS[fl.flow][i % 4], x: seconds(s), y: mbits(s.v), width: 1 });
      });
      if (fl.sum) {
        any = true;
        series.push({ name: arrow + (fl.streams.length ? " sum" : ""), color: FLOW[fl.flow], x: seconds(fl.sum), y: mbits(fl.sum.v), width: 2.2 });
      }
      if (fl.goodput !== null) {
        hlines.push({ name: arrow + " goodput", y: fl.goodput, color: FLOW[fl.flow], dash: "2 3", width: 1, label: "" });
      }
    });
    if (trial.ceiling !== null) {
      hlines.push({ name: "ceiling", y: trial.ceiling, text: ceil1(trial.ceiling), color: "#111827", dash: "7 4", label: "ceiling " + ceil1(trial.ceiling) + " Mbit/s" });
    }
    var message = null;
    if (trial.status !== "ok" && !any) message = "failed: " + (trial.reason || "no reason given");
    else if (!any) message = "no interval series: the tool printed only the summary";
    if (trial.ceiling === null) message = (message ? message + "; " : "") + "no ceiling: the link rate is unknown";
    lineChart(host, { series: series, hlines: hlines, ylabel: "Mbit/s", xlabel: "seconds", unit: "Mbit/s",
      xmax: trial.duration, message: message, height: 300 });
  }

  function cpuCharts(entry, host) {
    var grid = html("div", "cores", null, host);
    entry.cores.forEach(function (core) {
      var cell = html("div", "core", null, grid);
      html("div", "core-title", "cpu" + core.cpu, cell);
      var plot = html("div", "plot small", null, cell);
      lineChart(plot, { stack: true, height: 150, unit: "%", yfixed: 100, ylabel: "%", xlabel: null, legend: false,
        series: ["user", "system", "softirq"].map(function (k) { return { name: k, color: CPU[k], x: entry.t, y: core[k] }; }) });
    });
    var key = html("div", "legend static", null, host);
    ["user", "system", "softirq"].forEach(function (k) {
      var item = html("span", "lg", null, key);
      html("span", "sw", null, item).style.background = CPU[k];
      html("span", null, k, item);
    });
    if (!entry.irqs.length) return;
    html("h4", null, "Interrupts per CPU (per second)", host);
    var totals = entry.irqs.map(function (l) { return { l: l, sum: l.rates.reduce(function (a, b) { return a + b; }, 0) }; })
      .sort(function (a, b) { return b.sum - a.sum; });
    var top = totals.slice(0, 7), rest = totals.slice(7);
    var groups = entry.cpus.map(function (cpu, ci) {
      var bars = top.map(function (t, i) {
        var name = t.l.name ? t.l.irq + " " + t.l.name : t.l.irq;
        return { name: name, color: PALETTE[i % PALETTE.length], value: t.l.rates[ci] };
      });
      if (rest.length) {
        bars.push({ name: "other (" + rest.length + ")", color: "#cbd5e1",
          value: rest.reduce(function (a, t) { return a + t.l.rates[ci]; }, 0) });
      }
      return { label: "cpu" + cpu, bars: bars };
    });
    barChart(html("div", "plot", null, host), { groups: groups, stacked: true, ylabel: "interrupts/s", unit: "/s", height: 240 });
  }

  function monitor(index) {
    var host = document.getElementById("monitor");
    if (!host || !data.monitor.length) return;
    host.textContent = "";
    var entries = data.monitor.filter(function (m) { return m.trial === index; });
    if (!entries.length) {
      html("p", "muted", "No device samples for this trial.", host);
      return;
    }
    entries.forEach(function (entry) {
      var box = html("div", "device", null, host);
      html("h4", null, entry.host + (entry.role ? " (" + entry.role + ")" : "") + ": CPU by core, % of one core", box);
      cpuCharts(entry, box);
    });
  }

  function trialInfo(trial, host) {
    host.textContent = "";
    var badge = html("span", "badge " + trial.status, trial.status, host);
    badge.title = "trial status";
    html("span", null, " " + trial.test + " \u00b7 " + trial.path + (trial.variant !== "default" ? " (" + trial.variant + ")" : "") + " \u00b7 repetition " + trial.rep, host);
    trial.flows.forEach(function (fl) {
      html("span", "figure", ARROW[fl.flow] + " " + fmt(fl.goodput) + " Mbit/s", host);
    });
    if (trial.ceiling !== null) html("span", "figure muted", "ceiling " + ceil1(trial.ceiling), host);
    trial.notes.forEach(function (n) {
      var a = html("a", "note-ref", "[" + n + "]", host);
      a.href = "#note-" + n;
    });
  }

  function trials() {
    var select = document.getElementById("trial-select");
    if (!select || !data.trials.length) return;
    data.trials.forEach(function (t, i) {
      var o = html("option", null, t.test + " \u00b7 " + t.path + (t.variant !== "default" ? " (" + t.variant + ")" : "") + " \u00b7 #" + t.rep + (t.status !== "ok" ? " \u00b7 " + t.status : ""), select);
      o.value = String(i);
    });
    var first = 0;
    for (var i = 0; i < data.trials.length; i++) {
      if (data.trials[i].flows.some(function (f) { return f.sum; })) { first = i; break; }
    }
    function show(i) {
      select.value = String(i);
      var trial = data.trials[i];
      trialInfo(trial, document.getElementById("trial-info"));
      var plot = document.getElementById("trial-plot");
      redraws = redraws.filter(function (r) { return r.keep; });
      if (plot) throughput(trial, plot);  /* a run without traffic has no such plot */
      monitor(i);
      document.documentElement.setAttribute("data-trial", String(i));
    }
    select.addEventListener("change", function () { show(+select.value); });
    document.getElementById("trial-prev").addEventListener("click", function () { show(Math.max(0, +select.value - 1)); });
    document.getElementById("trial-next").addEventListener("click", function () { show(Math.min(data.trials.length - 1, +select.value + 1)); });
    show(first);
  }

  try {
    comparison();
    redraws.forEach(function (r) { r.keep = true; });
    trials();
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { redraws.forEach(function (r) { r(); }); }, 120);
    });
    document.documentElement.setAttribute("data-plots", String(drawn));
    document.documentElement.setAttribute("data-ready", "true");
  } catch (error) {
    document.documentElement.setAttribute("data-ready", "error");
    throw error;
  }
})();
