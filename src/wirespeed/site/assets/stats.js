/* The statistics of `wirespeed compare` (analysis/stats.py and analysis/compare_many.py),
   done in the page as Python does them, so that a comparison chosen in the table gives
   the figures the command gives: medians, each figure's ratio to the first column's, the
   ratio's seeded bootstrap interval (Python's Mersenne Twister, seeded as random.Random
   seeds it, drawing as random.choices draws), the permutation test (every split counted
   up to 20,000 of them, else 10,000 drawn as random.sample draws them) and the verdict.
   What depends on one card alone (its groups' summaries, a large group's bootstrap
   distribution of the median) is worked out by Python when the site is built. */
"use strict";

var WirespeedStats = (function () {
  var SEED = 20201209;
  var RESAMPLES = 2000;
  var CONFIDENCE = 0.95;
  var ALPHA = 0.05;
  var EXACT_PERMUTATION_LIMIT = 20000;
  var RANDOM_PERMUTATIONS = 10000;
  var LARGE_GROUP = 20;

  /* MT19937, as CPython's _randommodule.c. */
  function Twister(seed) {
    this.mt = new Uint32Array(624);
    this.index = 625;
    this.initByArray([seed >>> 0]);
  }
  Twister.prototype.initGenrand = function (s) {
    var mt = this.mt;
    mt[0] = s >>> 0;
    for (var i = 1; i < 624; i++) {
      var prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = 624;
  };
  Twister.prototype.initByArray = function (key) {
    var mt = this.mt;
    this.initGenrand(19650218);
    var i = 1, j = 0, k = Math.max(624, key.length);
    for (; k; k--) {
      var prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) >>> 0) + key[j] + j;
      i++; j++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (k = 623; k; k--) {
      var before = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(before, 1566083941)) >>> 0) - i;
      i++;
      if (i >= 624) { mt[0] = mt[623]; i = 1; }
    }
    mt[0] = 0x80000000;
    this.index = 624;
  };
  Twister.prototype.uint32 = function () {
    var mt = this.mt, y, kk;
    if (this.index >= 624) {
      for (kk = 0; kk < 624 - 397; kk++) {
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + 397] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < 623; kk++) {
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + (397 - 624)] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      y = (mt[623] & 0x80000000) | (mt[0] & 0x7fffffff);
      mt[623] = mt[396] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.index = 0;
    }
    y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  };
  Twister.prototype.random = function () {
    var a = this.uint32() >>> 5, b = this.uint32() >>> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  };
  Twister.prototype.getrandbits = function (k) {
    return k === 0 ? 0 : this.uint32() >>> (32 - k);
  };
  Twister.prototype.randbelow = function (n) {
    var k = n.toString(2).length, r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  };
  /* random.choices(population, k=k) */
  Twister.prototype.choices = function (population, k) {
    var n = population.length, out = new Array(k);
    for (var i = 0; i < k; i++) out[i] = population[Math.floor(this.random() * n)];
    return out;
  };
  /* random.choices(population, cum_weights=cumulative, k=k) */
  Twister.prototype.weighted = function (population, cumulative, k) {
    var total = cumulative[cumulative.length - 1] + 0.0, hi = population.length - 1;
    var out = new Array(k);
    for (var i = 0; i < k; i++) {
      var x = this.random() * total, lo = 0, top = hi;
      while (lo < top) { var mid = (lo + top) >> 1; if (x < cumulative[mid]) top = mid; else lo = mid + 1; }
      out[i] = population[lo];
    }
    return out;
  };
  /* random.sample(population, k) */
  Twister.prototype.sample = function (population, k) {
    var n = population.length, result = new Array(k), i, j;
    var setsize = 21;
    if (k > 5) setsize += Math.pow(4, Math.ceil(Math.log(k * 3) / Math.log(4)));
    if (n <= setsize) {
      var pool = population.slice();
      for (i = 0; i < k; i++) {
        j = this.randbelow(n - i);
        result[i] = pool[j];
        pool[j] = pool[n - i - 1];
      }
    } else {
      var selected = new Set();
      for (i = 0; i < k; i++) {
        j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = population[j];
      }
    }
    return result;
  };

  /* math.fsum, as CPython's (Shewchuk's partials, then round-half-even). */
  function fsum(values) {
    var p = [], i, j, x, y, t, hi, lo, yr;
    for (var v = 0; v < values.length; v++) {
      x = values[v];
      for (i = j = 0; j < p.length; j++) {
        y = p[j];
        if (Math.abs(x) < Math.abs(y)) { t = x; x = y; y = t; }
        hi = x + y; yr = hi - x; lo = y - yr;
        if (lo !== 0) p[i++] = lo;
        x = hi;
      }
      p.length = i;
      if (x !== 0) p.push(x);
    }
    var n = p.length;
    hi = 0; lo = 0;
    if (n > 0) {
      hi = p[--n];
      while (n > 0) {
        x = hi; y = p[--n];
        hi = x + y; yr = hi - x; lo = y - yr;
        if (lo !== 0) break;
      }
      if (n > 0 && ((lo < 0 && p[n - 1] < 0) || (lo > 0 && p[n - 1] > 0))) {
        y = lo * 2; x = hi + y; yr = x - hi;
        if (y === yr) hi = x;
      }
    }
    return hi;
  }
  function fmean(values) { return fsum(values) / values.length; }
  /* sum() of floats from 0, left to right. */
  function plainSum(values) { var s = 0; for (var i = 0; i < values.length; i++) s += values[i]; return s; }
  function median(values) {
    var data = values.slice().sort(function (a, b) { return a - b; }), n = data.length;
    if (n % 2 === 1) return data[(n - 1) / 2];
    return (data[n / 2 - 1] + data[n / 2]) / 2;
  }
  function comb(n, k) {
    var r = 1;
    for (var i = 1; i <= k; i++) r = r * (n - k + i) / i;
    return Math.round(r);
  }

  function percentileInterval(estimates) {
    estimates.sort(function (a, b) { return a - b; });
    var tail = (1 - CONFIDENCE) / 2;
    return {
      low: estimates[Math.floor(tail * estimates.length)],
      high: estimates[Math.ceil((1 - tail) * estimates.length) - 1],
    };
  }

  /* ratio_interval(a, b): of median(b) / median(a); null when a resample of a has a
     median of 0. a, b: the groups (values, and `large` where Python worked it out). */
  function ratioInterval(a, b) {
    var first = a.values, second = b.values;
    if (Math.min(first.length, second.length) >= LARGE_GROUP && Math.min.apply(null, first) > 0) {
      var twister = new Twister(SEED);
      var below = twister.weighted(a.large.medians, a.large.cumulative, RESAMPLES);
      var above = twister.weighted(b.large.medians, b.large.cumulative, RESAMPLES);
      return percentileInterval(below.map(function (x, i) { return above[i] / x; }));
    }
    var generator = new Twister(SEED), estimates = [];
    for (var r = 0; r < RESAMPLES; r++) {
      var down = median(generator.choices(first, first.length));
      if (down === 0) return null;
      estimates.push(median(generator.choices(second, second.length)) / down);
    }
    return percentileInterval(estimates);
  }

  /* permutation_test(a, b).p_value; Welch's t-test where both groups are large. */
  function permutationP(a, b) {
    var first = a.values, second = b.values, pooled = first.concat(second);
    var sizeA = first.length, sizeB = second.length, total = plainSum(pooled);
    var observed = fmean(second) - fmean(first);
    var largest = Math.max.apply(null, pooled.map(Math.abs));
    var tolerance = pooled.some(function (v) { return v !== 0; }) ? 1e-9 * largest : 0.0;
    var edge = Math.abs(observed) - tolerance;
    function difference(sumA) { return (total - sumA) / sizeB - sumA / sizeA; }
    var splits = comb(pooled.length, sizeA), count = 0;
    if (splits <= EXACT_PERMUTATION_LIMIT) {
      var chosen = [];
      (function walk(start, left) {
        if (left === 0) {
          var s = 0;
          for (var c = 0; c < chosen.length; c++) s += pooled[chosen[c]];
          if (Math.abs(difference(s)) >= edge) count++;
          return;
        }
        for (var i = start; i <= pooled.length - left; i++) {
          chosen.push(i); walk(i + 1, left - 1); chosen.pop();
        }
      })(0, sizeA);
      return count / splits;
    }
    if (Math.min(sizeA, sizeB) >= LARGE_GROUP) return welchP(a, b);
    var generator = new Twister(SEED);
    for (var r = 0; r < RANDOM_PERMUTATIONS; r++) {
      if (Math.abs(difference(plainSum(generator.sample(pooled, sizeA)))) >= edge) count++;
    }
    return (count + 1) / (RANDOM_PERMUTATIONS + 1);
  }

  /* Welch's test on groups of 20 or more, from each one's mean and variance as Python
     worked them out. Student's t by the incomplete beta function with a Lanczos log
     gamma: a p-value can differ from Python's in its last digits, never near 0.05 in
     practice. */
  function welchP(a, b) {
    var observed = b.large.fmean - a.large.fmean;
    var shareA = a.large.variance / a.values.length, shareB = b.large.variance / b.values.length;
    var spread = shareA + shareB;
    if (spread === 0) return observed === 0 ? 1.0 : 0.0;
    var df = Math.pow(spread, 2) / (Math.pow(shareA, 2) / (a.values.length - 1) + Math.pow(shareB, 2) / (b.values.length - 1));
    var t = observed / Math.sqrt(spread);
    if (!isFinite(t)) return 0.0;
    return regularizedBeta(df / (df + t * t), df / 2, 0.5);
  }
  var LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7];
  function lgamma(x) {
    if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
    x -= 1;
    var s = LANCZOS[0], t = x + 7.5;
    for (var i = 1; i < 9; i++) s += LANCZOS[i] / (x + i);
    return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(s);
  }
  function regularizedBeta(x, a, b) {
    if (x <= 0) return 0.0;
    if (x >= 1) return 1.0;
    var front = Math.exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * Math.log(x) + b * Math.log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * betaFraction(x, a, b) / a;
    return 1 - front * betaFraction(1 - x, b, a) / b;
  }
  function betaFraction(x, a, b) {
    var tiny = 1e-300, epsilon = 1e-15;
    function guarded(v) { return Math.abs(v) >= tiny ? v : tiny; }
    var c = 1.0, d = 1 / guarded(1 - (a + b) * x / (a + 1)), fraction = d;
    for (var m = 1; m < 10000; m++) {
      var even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      d = 1 / guarded(1 + even * d); c = guarded(1 + even / c); fraction *= d * c;
      var odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 / guarded(1 + odd * d); c = guarded(1 + odd / c);
      var step = d * c;
      fraction *= step;
      if (Math.abs(step - 1) < epsilon) break;
    }
    return fraction;
  }

  /* compare_many's _cell: a group against the first column's (null: none, or it is the
     first). */
  function cell(group, base) {
    var made = { group: group, median: group.median, ratio: null, interval: null, p: null, verdict: null };
    if (base === null) return made;
    var single = base.values.length < 2 || group.values.length < 2;
    if (base.median === 0 && group.median === 0) {
      made.ratio = 1.0;
      made.verdict = single ? "single run" : "not significant";
      return made;
    }
    if (base.median <= 0 || group.median < 0) { made.verdict = "no ratio"; return made; }
    made.ratio = group.median / base.median;
    if (single) { made.verdict = "single run"; return made; }
    made.interval = ratioInterval(base, group);
    made.p = permutationP(base, group);
    if (made.interval === null) made.verdict = "not significant";
    else {
      var excludesOne = !(made.interval.low <= 1.0 && 1.0 <= made.interval.high);
      made.verdict = made.p < ALPHA && excludesOne ? "significant" : "not significant";
    }
    return made;
  }

  /* Python's format(x, ".1f"): the exact value rounded, a tie to the even digit. */
  function fixed1(x) {
    var quarters = x * 4;
    if (Number.isInteger(quarters) && quarters % 2 !== 0) {
      var tenths = Math.floor(x * 10);
      if (tenths % 2 !== 0) tenths += 1;
      return (tenths / 10).toFixed(1);
    }
    return x.toFixed(1);
  }

  return { cell: cell, fixed1: fixed1, fsum: fsum, median: median, Twister: Twister, SEED: SEED };
})();
