// The chart helpers every HTML page of ampbench shares (the run report, the comparison page):
// SVG and HTML elements, mode colours, axes, figures and legends, and marking the page rendered.
var ampbenchCharts = (function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var COLORS = { fp32: '#4e79a7', fp16: '#f28e2b', bf16: '#59a14f', 'fp16-noscale': '#e15759', tf32: '#76b7b2', floor: '#8c959f' };

  function color(mode) { return COLORS[mode] || '#9c755f'; }
  function node(tag, attrs, parent, text) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, attrs, parent, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function groupBy(cells, key) {
    var groups = [];
    cells.forEach(function (c) {
      var k = key(c), g = groups.find(function (x) { return x.key === k; });
      if (!g) { g = { key: k, cells: [] }; groups.push(g); }
      g.cells.push(c);
    });
    return groups;
  }
  function seconds(v) {
    var units = [[1, 's'], [1e-3, 'ms'], [1e-6, '\u00b5s'], [1e-9, 'ns']];
    for (var i = 0; i < units.length; ++i) if (Math.abs(v) >= units[i][0]) return (v / units[i][0]).toPrecision(3) + ' ' + units[i][1];
    return v.toPrecision(3) + ' s';
  }
  function mib(v) { return (v / 1048576).toFixed(1) + ' MiB'; }
  function niceMax(v) {
    if (!(v > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v))), m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function figure(container, kind, title) {
    var f = html('figure', { 'class': 'chart', 'data-chart': kind }, container);
    html('figcaption', {}, f, title);
    return f;
  }
  // One entry per name, in the colour of the mode at the same index (the name itself by default).
  function legend(f, names, modes) {
    var l = html('div', { 'class': 'legend' }, f);
    names.forEach(function (m, i) { html('span', { style: '--swatch:' + color(modes ? modes[i] : m) }, l, m); });
  }
  // Five even ticks from min (0 unless given) to max, or on a log2 axis one tick per whole power of
  // two (at most about five).
  function yAxis(svg, box, max, format, log, min) {
    min = min || 0;
    var fractions = [0, 0.25, 0.5, 0.75, 1];
    if (log) {
      var stride = Math.max(1, Math.ceil((log.max - log.min) / 4));
      fractions = [];
      for (var e = log.min; e <= log.max; e += stride) fractions.push((e - log.min) / (log.max - log.min));
    }
    fractions.forEach(function (t) {
      var y = box.top + box.height * (1 - t);
      node('line', { x1: box.left, x2: box.left + box.width, y1: y, y2: y, stroke: '#eaeef2' }, svg);
      var value = log ? Math.pow(2, Math.round(log.min + (log.max - log.min) * t)) : min + (max - min) * t;
      node('text', { x: box.left - 6, y: y + 4, 'text-anchor': 'end' }, svg, format(value));
    });
  }

  // Marks the status line ok only when no script error was caught before the page's script finished.
  function markRendered() {
    var status = document.getElementById('ampbench-render-status');
    if (status.getAttribute('data-status') !== 'error') { status.setAttribute('data-status', 'ok'); status.textContent = ''; }
  }
  return { SVG: SVG, color: color, node: node, html: html, groupBy: groupBy, seconds: seconds, mib: mib, niceMax: niceMax,
           figure: figure, legend: legend, yAxis: yAxis, markRendered: markRendered };
})();
