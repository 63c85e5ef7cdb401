// The comparison page's charts, drawn as SVG from the embedded comparison JSON (series_to_json):
// the step-time change of every cell against the baseline with its interval, coloured by verdict,
// between the threshold lines; the step time of every cell and the speedup of every workload over
// the runs, the baseline marked.
(function (k) {
  'use strict';
  var node = k.node, html = k.html, figure = k.figure, legend = k.legend, yAxis = k.yAxis, niceMax = k.niceMax,
      groupBy = k.groupBy, seconds = k.seconds, color = k.color;
  var data = JSON.parse(document.getElementById('ampbench-data').textContent);
  var VERDICTS = { regressed: '#cf222e', improved: '#1a7f37', inconclusive: '#9a6700', unchanged: '#57606a' };
  function verdictColor(v) { return VERDICTS[v] || '#8c959f'; }
  function percent(v) { return (v > 0 ? '+' : '') + (100 * v).toFixed(1) + '%'; }
  function section(id) { return document.getElementById(id); }

  // One row per compared cell: the change (current / baseline - 1) as a dot with its whisker,
  // the zero line and the +-threshold lines.
  function changeChart(container) {
    var current = data.current, threshold = data.thresholds.max_slowdown;
    var rows = data.cells.map(function (c) { return { label: c.cell, against: c.runs[current].against_baseline }; })
      .filter(function (r) { return r.against && r.against.time_ratio && r.against.time_ratio.value !== null; });
    if (!rows.length) {
      html('p', { 'class': 'note', 'data-chart': 'change-none' }, container, 'No cell could be compared: each is missing or failed in a run.');
      return;
    }
    var f = figure(container, 'change', 'Step-time change, ' + data.runs[current].label + ' vs ' + data.runs[data.baseline].label + ' (95% CI)');
    var ends = [-threshold, threshold];
    rows.forEach(function (r) { var t = r.against.time_ratio; [t.ci_low, t.ci_high, t.value].forEach(function (v) { if (v !== null) ends.push(v - 1); }); });
    var lo = Math.min.apply(null, ends), hi = Math.max.apply(null, ends), pad = (hi - lo) * 0.08;
    lo -= pad; hi += pad;
    var box = { left: 230, top: 8, width: 440, height: rows.length * 22 };
    var svg = node('svg', { width: box.left + box.width + 20, height: box.top + box.height + 30, role: 'img' }, f);
    var sx = function (v) { return box.left + box.width * (v - lo) / (hi - lo); };
    [0, 0.25, 0.5, 0.75, 1].forEach(function (t) {
      var v = lo + (hi - lo) * t;
      node('text', { x: sx(v), y: box.top + box.height + 16, 'text-anchor': 'middle' }, svg, percent(v));
    });
    node('line', { 'class': 'zero', x1: sx(0), x2: sx(0), y1: box.top, y2: box.top + box.height, stroke: '#1f2328' }, svg);
    [-threshold, threshold].forEach(function (t) {
      node('title', {}, node('line', { 'class': 'threshold', x1: sx(t), x2: sx(t), y1: box.top, y2: box.top + box.height, stroke: '#cf222e', 'stroke-dasharray': '4 3' }, svg), 'threshold ' + percent(t));
    });
    var seen = [];
    rows.forEach(function (r, i) {
      var y = box.top + 11 + 22 * i, t = r.against.time_ratio, v = r.against.verdict;
      if (seen.indexOf(v) < 0) seen.push(v);
      node('text', { x: box.left - 8, y: y + 4, 'text-anchor': 'end' }, svg, r.label);
      if (t.ci_low !== null && t.ci_high !== null) node('line', { 'class': 'whisker', x1: sx(t.ci_low - 1), x2: sx(t.ci_high - 1), y1: y, y2: y, stroke: verdictColor(v), 'stroke-width': 2 }, svg);
      node('title', {}, node('circle', { 'class': 'change-point', 'data-verdict': v, cx: sx(t.value - 1), cy: y, r: 5, fill: verdictColor(v) }, svg),
        r.label + ': ' + percent(t.value - 1) + (t.ci_low !== null ? ' [' + percent(t.ci_low - 1) + ', ' + percent(t.ci_high - 1) + ']' : '') + ', ' + v);
    });
    var l = html('div', { 'class': 'legend' }, f);
    seen.forEach(function (v) { html('span', { style: '--swatch:' + verdictColor(v) }, l, v); });
  }

  // Runs along x (the baseline marked), one line per mode with each point's whisker; a run
  // without the figure breaks the line. A point after the baseline is ringed in its verdict's colour.
  function trendChart(container, kind, title, series, format, reference) {
    var n = data.runs.length;
    var f = figure(container, kind, title);
    var box = { left: 64, top: 18, width: Math.max(220, n * 96), height: 140 };
    var svg = node('svg', { width: box.left + box.width + 10, height: box.top + box.height + 34, role: 'img' }, f);
    var highs = [reference || 0];
    series.forEach(function (s) { s.points.forEach(function (p) { if (p) highs.push(p.high !== null ? p.high : p.value); }); });
    var max = niceMax(Math.max.apply(null, highs));
    yAxis(svg, box, max, format);
    var sx = function (i) { return box.left + box.width * (i + 0.5) / n; };
    var sy = function (v) { return box.top + box.height * (1 - Math.max(0, v) / max); };
    data.runs.forEach(function (run, i) {
      var label = run.label.length > 14 ? run.label.slice(0, 13) + '\u2026' : run.label;
      node('title', {}, node('text', { x: sx(i), y: box.top + box.height + 16, 'text-anchor': 'middle' }, svg, label), run.label + ' ' + run.timestamp_utc);
    });
    node('line', { 'class': 'baseline-mark', x1: sx(data.baseline), x2: sx(data.baseline), y1: box.top, y2: box.top + box.height, stroke: '#8c959f', 'stroke-dasharray': '2 3' }, svg);
    node('text', { x: sx(data.baseline), y: box.top - 6, 'text-anchor': 'middle' }, svg, 'baseline');
    if (reference) node('line', { 'class': 'reference', x1: box.left, x2: box.left + box.width, y1: sy(reference), y2: sy(reference), stroke: '#cf222e', 'stroke-dasharray': '4 3' }, svg);
    series.forEach(function (s) {
      var d = '', pen = 'M';
      s.points.forEach(function (p, i) {
        if (!p) { pen = 'M'; return; }
        d += pen + sx(i).toFixed(1) + ' ' + sy(p.value).toFixed(1) + ' '; pen = 'L';
      });
      if (d) node('title', {}, node('path', { 'class': 'series', d: d, fill: 'none', stroke: color(s.mode), 'stroke-width': 1.5 }, svg), s.mode);
      s.points.forEach(function (p, i) {
        if (!p) return;
        if (p.low !== null && p.high !== null) node('line', { 'class': 'whisker', x1: sx(i), x2: sx(i), y1: sy(p.low), y2: sy(p.high), stroke: color(s.mode) }, svg);
        var ring = i === data.baseline ? color(s.mode) : verdictColor(p.verdict);
        node('title', {}, node('circle', { 'class': 'trend-point', cx: sx(i), cy: sy(p.value), r: 4, fill: color(s.mode), stroke: ring, 'stroke-width': 2 }, svg),
          s.mode + ', ' + data.runs[i].label + ': ' + format(p.value) + (p.low !== null ? ' [' + format(p.low) + ', ' + format(p.high) + ']' : '') + (i === data.baseline ? ' (baseline)' : ', ' + p.verdict));
      });
    });
    legend(f, series.map(function (s) { return s.mode; }));
  }

  function point(run, figureOf) {
    if (run.status !== 'ok') return null;
    var v = figureOf(run);
    if (!v || v.value === null) return null;
    return { value: v.value, low: v.ci_low, high: v.ci_high, verdict: run.against_baseline ? run.against_baseline.verdict : 'baseline' };
  }

  changeChart(section('chart-change'));
  // Step time per cell (the modes of a workload differ by up to 20x here, so they do not share an
  // axis); speedup per workload, on one axis around 1.0x.
  data.cells.forEach(function (c) {
    var steps = [{ mode: c.mode, points: c.runs.map(function (r) { return point(r, function (x) { return x.step_time_s; }); }) }];
    if (steps[0].points.some(function (p) { return p; })) trendChart(section('chart-trend'), 'trend-step-time', 'Step time, ' + c.cell + ' (95% CI)', steps, seconds);
  });
  groupBy(data.cells, function (c) { return c.workload + ' @ ' + c.device + (c.preset ? ' ' + c.preset : '') + (c.ranks > 1 ? ' ranks=' + c.ranks : ''); }).forEach(function (g) {
    var speedups = g.cells.map(function (c) { return { mode: c.mode, points: c.runs.map(function (r) { return point(r, function (x) { return x.speedup_vs_fp32; }); }) }; })
      .filter(function (s) { return s.points.some(function (p) { return p; }); });
    if (speedups.length) trendChart(section('chart-speedup-trend'), 'trend-speedup', 'Speedup vs FP32, ' + g.key + ' (95% CI)', speedups, function (v) { return v.toFixed(2) + 'x'; }, 1);
  });
  k.markRendered();
})(ampbenchCharts);
