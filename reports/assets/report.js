// The run report's charts, drawn as SVG by plain JavaScript from the report JSON embedded in the
// page (reports/src/render/html.cpp); the helpers come from chart_kit.js.
(function (k) {
  'use strict';
  var color = k.color, node = k.node, html = k.html, groupBy = k.groupBy, seconds = k.seconds, mib = k.mib,
      niceMax = k.niceMax, figure = k.figure, legend = k.legend, yAxis = k.yAxis;
  var report = JSON.parse(document.getElementById('ampbench-data').textContent);
  var ok = report.cells.filter(function (c) { return c.status === 'ok'; });
  // Cells of several ranks are charted apart from their one-rank twins (CellKey::label's ranks=N).
  function place(c) { return c.workload + ' @ ' + c.device + (c.ranks > 1 ? ' ranks=' + c.ranks : ''); }

  // Bars per group with optional CI whiskers and a reference line (speedup 1.0). Above `cap` the axis
  // stops: a taller bar is drawn to the top and labelled with its value.
  function barChart(container, kind, title, groups, format, reference, cap) {
    var f = figure(container, kind, title);
    // Each group is wide enough for its bars and for its label.
    var widths = groups.map(function (g) { return Math.max(g.bars.length * 34, 7 * g.key.length); });
    var box = { left: 64, top: 10, width: Math.max(220, widths.reduce(function (a, w) { return a + w + 20; }, 10)), height: 180 };
    var svg = node('svg', { width: box.left + box.width + 10, height: box.top + box.height + 40, role: 'img' }, f);
    var max = niceMax(Math.max.apply(null, groups.map(function (g) {
      return Math.max.apply(null, g.bars.map(function (b) { return Math.max(b.value, b.high || 0, reference || 0); }));
    })));
    if (cap) max = Math.min(max, cap);
    yAxis(svg, box, max, format);
    var scale = function (v) { return box.top + box.height * (1 - Math.min(max, Math.max(0, v)) / max); };
    var x = box.left + 10, modes = [];
    groups.forEach(function (g, index) {
      var start = x;
      x += (widths[index] - g.bars.length * 34) / 2;
      g.bars.forEach(function (b) {
        if (modes.indexOf(b.mode) < 0) modes.push(b.mode);
        var r = node('rect', { 'class': 'bar', x: x, y: scale(b.value), width: 26, height: box.top + box.height - scale(b.value), fill: color(b.mode) }, svg);
        node('title', {}, r, g.key + ' ' + b.mode + ': ' + format(b.value) + (b.low !== undefined ? ' [' + format(b.low) + ', ' + format(b.high) + ']' : ''));
        if (b.value > max) node('text', { 'class': 'beyond-axis', x: x + 13, y: box.top + 10, 'text-anchor': 'middle' }, svg, format(b.value));
        if (b.low !== undefined && b.low !== null) {
          node('line', { 'class': 'whisker', x1: x + 13, x2: x + 13, y1: scale(b.low), y2: scale(b.high), stroke: '#1f2328' }, svg);
          [b.low, b.high].forEach(function (v) { node('line', { x1: x + 8, x2: x + 18, y1: scale(v), y2: scale(v), stroke: '#1f2328' }, svg); });
        }
        x += 34;
      });
      x = start + widths[index];
      node('text', { x: start + widths[index] / 2, y: box.top + box.height + 16, 'text-anchor': 'middle' }, svg, g.key);
      x += 20;
    });
    if (reference) node('line', { 'class': 'reference', x1: box.left, x2: box.left + box.width, y1: scale(reference), y2: scale(reference), stroke: '#cf222e', 'stroke-dasharray': '4 3' }, svg);
    legend(f, modes);
  }

  // Lines over steps; a null (non-finite) value breaks the line. A series is drawn at its own x
  // (s.x, e.g. evaluation steps; by default 0, 1, 2, ...), dashed when s.dash, named s.label or its
  // mode. Options: log2 y, markers (indexes into series[0]), a band shaded from 0 up to
  // band.values at band.x, and the x axis's label.
  function lineChart(container, kind, title, series, format, options) {
    var f = figure(container, kind, title);
    var box = { left: 64, top: 10, width: 420, height: 180 };
    var svg = node('svg', { width: box.left + box.width + 10, height: box.top + box.height + 30, role: 'img' }, f);
    var xOf = function (s, i) { return s.x ? s.x[i] : i; };
    var values = [], steps = 1, band = options.band;
    series.concat(band ? [band] : []).forEach(function (s) {
      if (s.values.length) steps = Math.max(steps, xOf(s, s.values.length - 1));
      s.values.forEach(function (v) { if (v !== null && v > 0) values.push(v); });
    });
    var log = options.log && values.length ? { min: Math.floor(Math.log2(Math.min.apply(null, values))), max: Math.ceil(Math.log2(Math.max.apply(null, values))) + 1 } : null;
    var max = niceMax(values.length ? Math.max.apply(null, values) : 1);
    yAxis(svg, box, max, format, log);
    var sx = function (x) { return box.left + box.width * x / steps; };
    var sy = function (v) { return log ? box.top + box.height * (1 - (Math.log2(v) - log.min) / (log.max - log.min)) : box.top + box.height * (1 - v / max); };
    if (band) {
      // Closed along the zero line; a non-finite value is drawn at zero.
      var edge = band.values.map(function (v, i) { return sx(xOf(band, i)).toFixed(1) + ' ' + sy(v === null ? 0 : v).toFixed(1); });
      var last = sx(xOf(band, band.values.length - 1)).toFixed(1), first = sx(xOf(band, 0)).toFixed(1), zero = sy(0).toFixed(1);
      node('title', {}, node('path', { 'class': 'band', d: 'M' + first + ' ' + zero + ' L' + edge.join(' L') + ' L' + last + ' ' + zero + ' Z', fill: color('floor'), 'fill-opacity': 0.25, stroke: 'none' }, svg), band.label);
    }
    series.forEach(function (s) {
      var d = '', pen = 'M';
      s.values.forEach(function (v, i) {
        if (v === null || (log && !(v > 0))) { pen = 'M'; return; }
        d += pen + sx(xOf(s, i)).toFixed(1) + ' ' + sy(v).toFixed(1) + ' '; pen = 'L';
      });
      var attrs = { 'class': 'series', d: d || 'M0 0', fill: 'none', stroke: color(s.mode), 'stroke-width': 1.5 };
      if (s.dash) attrs['stroke-dasharray'] = '5 3';
      node('title', {}, node('path', attrs, svg), s.label || s.mode);
    });
    (options.markers || []).forEach(function (m) {
      var v = series[0].values[m];
      node('title', {}, node('circle', { 'class': 'skipped-step', cx: sx(m), cy: v !== null && v > 0 ? sy(v) : box.top + box.height, r: 4, fill: '#cf222e' }, svg), 'skipped step ' + m);
    });
    node('text', { x: box.left + box.width / 2, y: box.top + box.height + 22, 'text-anchor': 'middle' }, svg, options.xLabel || 'step (warm-up included)');
    legend(f, series.map(function (s) { return s.label || s.mode; }).concat(band ? [band.label] : []), series.map(function (s) { return s.mode; }).concat(band ? ['floor'] : []));
  }

  // The numerics pass of one workload on one device and preset: the FP32 cell holds the floor run.
  // |other - fp32| / fp32 per evaluation; null where either is not finite or FP32's is 0.
  function relativeTo(reference, other) {
    return reference.map(function (r, i) {
      var v = other[i];
      return r === null || r === 0 || v === null || v === undefined ? null : Math.abs(v - r) / Math.abs(r);
    });
  }
  function numericsCharts(container, key, cells) {
    var passes = cells.filter(function (c) { return c.numerics && !c.numerics.error; });
    var fp32 = passes.find(function (c) { return c.mode === 'fp32' && c.numerics.floor; });
    var loss = function (v) { return v.toPrecision(3); };
    var percent = function (v) { return (100 * v).toPrecision(3) + '%'; };
    var xLabel = 'numerics step';
    if (fp32) {
      var n = fp32.numerics, floor = relativeTo(n.run.eval_loss, n.floor.eval_loss);
      var multiple = (passes.find(function (c) { return c.divergence; }) || {}).divergence;
      multiple = multiple ? multiple.floor_multiple : 3;
      var amp = passes.filter(function (c) { return c !== fp32 && c.numerics.eval_steps.length === n.eval_steps.length; });
      var series = amp.map(function (c) { return { mode: c.mode, x: n.eval_steps, values: relativeTo(n.run.eval_loss, c.numerics.run.eval_loss) }; });
      series.push({ mode: 'floor', label: 'diverged beyond (' + multiple + 'x floor)', dash: true, x: n.eval_steps, values: floor.map(function (v) { return v === null ? null : v * multiple; }) });
      lineChart(container, 'divergence', 'Eval loss |AMP - FP32| / FP32, ' + key, series, percent,
        { band: { label: 'noise floor (FP32, ' + n.floor_perturbation + ')', x: n.eval_steps, values: floor }, xLabel: xLabel });
    }
    if (!passes.length) return false;
    var curves = function (pick, x) {
      var out = passes.map(function (c) { return { mode: c.mode, x: x(c), values: pick(c.numerics.run) }; });
      if (fp32) out.push({ mode: 'floor', label: 'fp32 floor', dash: true, x: x(fp32), values: pick(fp32.numerics.floor) });
      return out;
    };
    lineChart(container, 'train-loss', 'Training loss (numerics pass), ' + key, curves(function (r) { return r.train_loss; }, function () { return null; }), loss, { xLabel: xLabel });
    lineChart(container, 'eval-loss', 'Held-out eval loss (numerics pass, float32), ' + key, curves(function (r) { return r.eval_loss; }, function (c) { return c.numerics.eval_steps; }), loss, { xLabel: xLabel });
    return true;
  }

  function section(id) { return document.getElementById(id); }

  // At a glance: each mode's step time and peak memory against FP32's, a group per workload. A step
  // time relative to FP32's is the speedup's reciprocal, its interval's ends swapped.
  var ratio = function (v) { return v.toFixed(2) + 'x'; };
  var relativeTime = function (c) {
    if (c.mode === 'fp32') return { mode: c.mode, value: 1, low: 1, high: 1 };
    var r = c.speedup_vs_fp32;
    return r && r.value > 0 && r.ci_low > 0 ? { mode: c.mode, value: 1 / r.value, low: 1 / r.ci_high, high: 1 / r.ci_low } : null;
  };
  var relativeMemory = function (c) {
    if (c.mode === 'fp32') return { mode: c.mode, value: 1 };
    return c.memory_ratio_vs_fp32 ? { mode: c.mode, value: c.memory_ratio_vs_fp32.value } : null;
  };
  var glance = function (bar) {
    return groupBy(ok, function (c) { return c.workload + (c.ranks > 1 ? ' ranks=' + c.ranks : ''); }).map(function (g) {
      return { key: g.key, bars: g.cells.map(bar).filter(function (b) { return b; }) };
    }).filter(function (g) { return g.bars.length; });
  };
  if (section('chart-glance')) {
    barChart(section('chart-glance'), 'glance-time', 'Step time relative to FP32 (95% CI; lower is faster)', glance(relativeTime), ratio, 1, 3);
    barChart(section('chart-glance'), 'glance-memory', 'Peak memory relative to FP32 (lower is smaller)', glance(relativeMemory), ratio, 1, 3);
  }

  groupBy(ok, place).forEach(function (g) {
    // Over rounds when the cell has them (the interval a rerun falls in), else over steps.
    barChart(section('chart-step-time'), 'step-time', 'Step time, ' + g.key + ' (95% CI)', [{
      key: g.key, bars: g.cells.map(function (c) {
        if (c.rounds) { var r = c.rounds.step_time; return { mode: c.mode, value: r.value, low: r.ci_low, high: r.ci_high }; }
        var s = c.throughput.step_time_s; return { mode: c.mode, value: s.median, low: s.ci_low, high: s.ci_high };
      })
    }], seconds);
  });
  var speedups = groupBy(ok.filter(function (c) { return c.speedup_vs_fp32; }), place).map(function (g) {
    return { key: g.key, bars: g.cells.map(function (c) { var r = c.speedup_vs_fp32; return { mode: c.mode, value: r.value, low: r.ci_low, high: r.ci_high }; }) };
  });
  if (speedups.length) barChart(section('chart-speedup'), 'speedup', 'Speedup vs FP32 (95% CI; over paired rounds where the modes took turns)', speedups, function (v) { return v.toFixed(2) + 'x'; }, 1);
  else html('p', { 'class': 'note' }, section('chart-speedup'), 'No speedups: no AMP cell with a successful FP32 cell.');
  barChart(section('chart-memory'), 'memory', 'Peak tensor memory', groupBy(ok, place).map(function (g) {
    return { key: g.key, bars: g.cells.map(function (c) { return { mode: c.mode, value: c.memory.peak_tensor_bytes }; }) };
  }), mib);
  // Energy per timed step (the meter's joules over each round's steps) and against FP32's, or why
  // no cell has it.
  var withEnergy = ok.filter(function (c) { return c.energy; });
  var joules = function (v) { return v >= 1 ? v.toPrecision(3) + ' J' : (v * 1000).toPrecision(3) + ' mJ'; };
  groupBy(withEnergy, place).forEach(function (g) {
    barChart(section('chart-energy'), 'energy', 'Energy per step, ' + g.key + ' (95% CI; ' + g.cells[0].energy.meter + ')', [{
      key: g.key, bars: g.cells.map(function (c) { var e = c.energy.joules_per_step; return { mode: c.mode, value: e.value, low: e.ci_low, high: e.ci_high }; })
    }], joules);
  });
  var energyRatios = groupBy(withEnergy.filter(function (c) { return c.energy_ratio_vs_fp32; }), place).map(function (g) {
    return { key: g.key, bars: g.cells.map(function (c) { var r = c.energy_ratio_vs_fp32; return { mode: c.mode, value: r.value, low: r.ci_low, high: r.ci_high }; }) };
  });
  if (energyRatios.length) barChart(section('chart-energy'), 'energy-ratio', 'Energy per step relative to FP32 (95% CI; lower is cheaper)', energyRatios, ratio, 1, 3);
  if (!withEnergy.length) {
    var meter = report.environment.energy_meter;
    html('p', { 'class': 'note', 'data-chart': 'energy-unavailable' }, section('chart-energy'), 'Not measured' + (meter && meter.reason ? ': ' + meter.reason : '.'));
  }
  // Divergence and loss curves from the numerics pass (every mode the same steps); reports
  // without one show the timed steps' losses, which modes ran for different numbers of steps.
  groupBy(ok, function (c) { return place(c) + ' ' + c.preset; }).forEach(function (g) {
    if (!numericsCharts(section('chart-numerics'), g.key, g.cells)) {
      var timed = g.cells.filter(function (c) { return c.losses.length; });
      if (timed.length) lineChart(section('chart-numerics'), 'loss', 'Loss (timed steps), ' + g.key, timed.map(function (c) { return { mode: c.mode, values: c.losses }; }), function (v) { return v.toPrecision(3); }, {});
    }
  });
  groupBy(ok.filter(function (c) { return c.grad_norms && c.grad_norms.length; }), place).forEach(function (g) {
    lineChart(section('chart-loss'), 'grad-norm', 'Gradient norm (unscaled), ' + g.key, g.cells.map(function (c) { return { mode: c.mode, values: c.grad_norms }; }), function (v) { return v.toPrecision(3); }, {});
  });
  if (!section('chart-loss').children.length) html('p', { 'class': 'note' }, section('chart-loss'), 'No gradient norms recorded.');
  ok.filter(function (c) { return c.scaler && c.scaler.scale.length; }).forEach(function (c) {
    lineChart(section('chart-scale'), 'scale', 'GradScaler scale, ' + place(c) + ' ' + c.mode + ' (' + c.scaler.skipped_steps.length + ' skipped)',
      [{ mode: c.mode, values: c.scaler.scale }], function (v) { return v >= 1024 ? '2^' + Math.round(Math.log2(v)) : v.toPrecision(3); }, { log: true, markers: c.scaler.skipped_steps });
  });
  if (!section('chart-scale').children.length) html('p', { 'class': 'note' }, section('chart-scale'), 'No cell used a GradScaler.');
  var measured = ok.filter(function (c) { return c.tensor_cores.status === 'measured' && c.tensor_cores.metrics.length; });
  if (measured.length) {
    barChart(section('chart-tensor-cores'), 'tensor-cores', 'Tensor-core utilisation (' + measured[0].tensor_cores.metrics[0].unit + ')', groupBy(measured, place).map(function (g) {
      return { key: g.key, bars: g.cells.map(function (c) { return { mode: c.mode, value: c.tensor_cores.metrics[0].value }; }) };
    }), function (v) { return v.toFixed(1); });
  } else {
    var reasons = ok.map(function (c) { return c.tensor_cores.reason; }).filter(function (r, i, all) { return r && all.indexOf(r) === i; });
    html('p', { 'class': 'note', 'data-chart': 'tensor-cores-unavailable' }, section('chart-tensor-cores'), 'Not measured' + (reasons.length ? ': ' + reasons.join('; ') : '.'));
  }

  k.markRendered();
})(ampbenchCharts);
