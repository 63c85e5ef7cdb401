// The history page's charts, drawn as SVG from the embedded `history show` JSON
// (render_history_html): one chart per series, each run's value with its 95% interval in the order
// the runs were stored (hollow where the host spent the run in another state), and a dashed line
// before each change point's first run, labelled with its magnitude; hovering a point names its run
// and commit.
(function (k) {
  'use strict';
  var node = k.node, html = k.html, figure = k.figure, color = k.color;
  var data = JSON.parse(document.getElementById('ampbench-data').textContent);

  function formatter(unit) {
    if (unit === 's') return k.seconds;
    if (unit === 'bytes') return k.mib;
    return function (v) { return v.toPrecision(4); };
  }

  function seriesChart(container, series) {
    var runs = series.runs, n = runs.length, format = formatter(series.unit);
    var mode = series.cell.split('/')[1];
    var f = figure(container, 'history-series', series.cell + ', ' + series.figure + ' (95% CI)');
    var box = { left: 76, top: 18, width: Math.max(260, Math.min(900, n * 18)), height: 140 };
    var svg = node('svg', { width: box.left + box.width + 12, height: box.top + box.height + 34, role: 'img' }, f);
    // A zoomed axis around the values: a history is about steps of a few percent.
    var ends = [];
    runs.forEach(function (r) { ends.push(r.value, r.ci_low, r.ci_high); });
    var lo = Math.min.apply(null, ends), hi = Math.max.apply(null, ends);
    var pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.05 || 1;
    lo -= pad; hi += pad;
    var sx = function (i) { return box.left + box.width * (i + 0.5) / n; };
    var sy = function (v) { return box.top + box.height * (1 - (v - lo) / (hi - lo)); };
    k.yAxis(svg, box, hi, format, null, lo);
    var stride = Math.max(1, Math.ceil(n / 10));
    runs.forEach(function (r, i) {
      if (i % stride === 0 || i === n - 1) node('text', { x: sx(i), y: box.top + box.height + 16, 'text-anchor': 'middle' }, svg, String(r.run));
    });
    node('text', { x: box.left + box.width / 2, y: box.top + box.height + 30, 'text-anchor': 'middle' }, svg, 'run');
    var d = '';
    runs.forEach(function (r, i) { d += (i ? 'L' : 'M') + sx(i).toFixed(1) + ' ' + sy(r.value).toFixed(1) + ' '; });
    node('path', { 'class': 'series', d: d, fill: 'none', stroke: color(mode), 'stroke-width': 1.2 }, svg);
    runs.forEach(function (r, i) {
      node('line', { 'class': 'whisker', x1: sx(i), x2: sx(i), y1: sy(r.ci_low), y2: sy(r.ci_high), stroke: color(mode) }, svg);
      // A run the host spent wholly in another state is drawn hollow: the search and the gate left it out.
      var other = !!r.other_host_state;
      node('title', {}, node('circle', { 'class': 'history-point' + (other ? ' other-host-state' : ''), cx: sx(i), cy: sy(r.value), r: 3, fill: other ? '#ffffff' : color(mode), stroke: color(mode) }, svg),
        'run ' + r.run + (r.commit ? ' (' + r.commit + ')' : '') + ': ' + format(r.value) + ' [' + format(r.ci_low) + ', ' + format(r.ci_high) + ']' +
        (other ? '; another state of the host (its machine probe beyond 1.3x the median of the runs around it): left out of the change-point search and the gate' : ''));
    });
    series.change_points.forEach(function (c) {
      var at = runs.findIndex(function (r) { return r.run === c.run; });
      if (at < 0) return;
      var x = at > 0 ? (sx(at - 1) + sx(at)) / 2 : sx(at);
      // A change the machine probe moved with is the host's, drawn grey: not a commit to bisect.
      var machine = !!c.attribution;
      var stroke = machine ? '#6e7781' : '#cf222e';
      node('title', {}, node('line', { 'class': 'change-point-mark' + (machine ? ' machine' : ''), x1: x, x2: x, y1: box.top, y2: box.top + box.height, stroke: stroke, 'stroke-dasharray': '4 3', 'stroke-width': 1.5 }, svg),
        'change point at run ' + c.run + ': ' + c.description + (machine ? ' (' + c.attribution + ')' : '') + ', commits ' + c.commits);
      node('text', { x: x + 4, y: box.top + 10, fill: stroke }, svg, c.description.split(' ')[0] + (machine ? ' machine' : ''));
    });
  }

  data.testbeds.forEach(function (testbed, i) {
    var container = document.getElementById('history-charts-' + i);
    if (!testbed.series.length) html('p', { 'class': 'note' }, container, 'No series: no run of this testbed has the figures asked for.');
    testbed.series.forEach(function (series) { seriesChart(container, series); });
  });
  k.markRendered();
})(ampbenchCharts);
