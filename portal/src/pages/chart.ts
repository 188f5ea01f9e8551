import { h } from './dom.js';
import { decimalsFor, nearest, scale, timeLabel, timeTicks, valueLabel, valueTicks } from './chart-scale.js';

/** One point of a series: a time, and a value or a bar (open, high, low, close). */
export interface Point {
  t: number;
  value: number;
  bar?: { open: number; high: number; low: number; close: number };
}

/** One line or set of candles, e.g. one venue's bars. */
export interface Series {
  name: string;
  points: Point[];
}

interface ChartSpec {
  /** What is drawn, in words (the accessible name starts with it). */
  title: string;
  /** The catalogue's unit of the values (USD, percent, count…). */
  unit: string;
  series: Series[];
}

const NS = 'http://www.w3.org/2000/svg';
const MARGIN = { top: 12, right: 12, bottom: 30, left: 72 };

function svgEl(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

interface Frame {
  width: number;
  height: number;
  x: (t: number) => number;
  y: (v: number) => number;
  xStep: number;
  decimals: number;
}

function frameOf(spec: ChartSpec, width: number, height: number, svg: SVGElement): Frame {
  const points = spec.series.flatMap((s) => s.points);
  const times = points.map((p) => p.t);
  const lows = points.map((p) => p.bar?.low ?? p.value);
  const highs = points.map((p) => p.bar?.high ?? p.value);
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  const [lo, hi] = [Math.min(...lows), Math.max(...highs)];
  const pad = (hi - lo) * 0.05 || Math.abs(hi) * 0.01 || 1;
  const yTicks = valueTicks(lo - pad, hi + pad, Math.max(2, Math.floor(height / 50)));
  const xTicks = timeTicks(t0, t1, Math.max(2, Math.floor(width / 90)));
  const x = scale(t0, t1, MARGIN.left, width - MARGIN.right);
  const y = scale(lo - pad, hi + pad, height - MARGIN.bottom, MARGIN.top);
  const decimals = decimalsFor(yTicks.step);
  const axes = svgEl('g', { class: 'axes' });
  for (const v of yTicks.ticks) {
    axes.append(
      svgEl('line', { class: 'grid', x1: MARGIN.left, x2: width - MARGIN.right, y1: y(v), y2: y(v) }),
    );
    axes.append(
      svgEl('text', { x: MARGIN.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, valueLabel(v, decimals)),
    );
  }
  for (const t of xTicks.ticks) {
    axes.append(
      svgEl('line', {
        class: 'tick',
        x1: x(t),
        x2: x(t),
        y1: height - MARGIN.bottom,
        y2: height - MARGIN.bottom + 5,
      }),
    );
    axes.append(
      svgEl(
        'text',
        { x: x(t), y: height - MARGIN.bottom + 18, 'text-anchor': 'middle' },
        timeLabel(t, xTicks.step),
      ),
    );
  }
  axes.append(
    svgEl('line', {
      class: 'axis',
      x1: MARGIN.left,
      x2: width - MARGIN.right,
      y1: height - MARGIN.bottom,
      y2: height - MARGIN.bottom,
    }),
    svgEl('line', {
      class: 'axis',
      x1: MARGIN.left,
      x2: MARGIN.left,
      y1: MARGIN.top,
      y2: height - MARGIN.bottom,
    }),
    svgEl('text', { class: 'unit', x: 4, y: MARGIN.top + 4 }, spec.unit),
  );
  svg.append(axes);
  return { width, height, x, y, xStep: xTicks.step, decimals };
}

/** Candles: a wick from low to high, a body from open to close (rising and falling told apart). */
function candles(series: Series, f: Frame, index: number): SVGElement {
  const g = svgEl('g', { class: `series series-${index} candles`, 'data-series': series.name });
  const plot = f.width - MARGIN.left - MARGIN.right;
  const w = Math.max(1, Math.min(14, (plot / Math.max(1, series.points.length)) * 0.7));
  for (const p of series.points) {
    const b = p.bar!;
    const up = b.close >= b.open;
    const c = svgEl('g', { class: `candle ${up ? 'up' : 'down'}` });
    c.append(svgEl('line', { x1: f.x(p.t), x2: f.x(p.t), y1: f.y(b.high), y2: f.y(b.low) }));
    const top = f.y(Math.max(b.open, b.close));
    const height = Math.max(1, Math.abs(f.y(b.open) - f.y(b.close)));
    c.append(svgEl('rect', { x: f.x(p.t) - w / 2, y: top, width: w, height }));
    g.append(c);
  }
  return g;
}

/** A line through the series' values (a bar's close), with its high/low band when it has bars. */
function line(series: Series, f: Frame, index: number): SVGElement {
  const g = svgEl('g', { class: `series series-${index} line`, 'data-series': series.name });
  const at = (p: Point, v: number) => `${f.x(p.t).toFixed(1)},${f.y(v).toFixed(1)}`;
  const bars = series.points.filter((p) => p.bar);
  if (bars.length === series.points.length && bars.length > 0) {
    const upper = bars.map((p) => at(p, p.bar!.high));
    const lower = bars.map((p) => at(p, p.bar!.low)).reverse();
    g.append(svgEl('path', { class: 'band', d: `M${upper.join('L')}L${lower.join('L')}Z` }));
  }
  g.append(svgEl('path', { class: 'stroke', d: `M${series.points.map((p) => at(p, p.value)).join('L')}` }));
  return g;
}

function readoutText(spec: ChartSpec, t: number, decimals: number): string {
  const at = new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  const parts = spec.series.map((s) => {
    const p =
      s.points[
        nearest(
          s.points.map((q) => q.t),
          t,
        )
      ]!;
    const v = (n: number) => valueLabel(n, decimals);
    const what = p.bar
      ? `open ${v(p.bar.open)}, high ${v(p.bar.high)}, low ${v(p.bar.low)}, close ${v(p.bar.close)}`
      : v(p.value);
    return `${spec.series.length > 1 ? `${s.name}: ` : ''}${what} ${spec.unit}`;
  });
  return `${at} — ${parts.join('; ')}`;
}

/** Draws the chart into `svg` at `width` × `height`, with the hover line and its readout. */
function draw(svg: SVGElement, spec: ChartSpec, width: number, height: number, readout: HTMLElement): void {
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  const f = frameOf(spec, width, height, svg);
  const asCandles = spec.series.length === 1 && spec.series[0]!.points.every((p) => p.bar);
  spec.series.forEach((s, i) => svg.append(asCandles ? candles(s, f, i) : line(s, f, i)));
  const cursor = svgEl('line', {
    class: 'cursor',
    y1: MARGIN.top,
    y2: height - MARGIN.bottom,
    x1: -10,
    x2: -10,
  });
  svg.append(cursor);
  const times = [...new Set(spec.series.flatMap((s) => s.points.map((p) => p.t)))].sort((a, b) => a - b);
  const show = (i: number) => {
    const t = times[Math.max(0, Math.min(times.length - 1, i))]!;
    cursor.setAttribute('x1', String(f.x(t)));
    cursor.setAttribute('x2', String(f.x(t)));
    readout.textContent = readoutText(spec, t, f.decimals);
    return times.indexOf(t);
  };
  let current = times.length - 1;
  svg.onpointermove = (e: PointerEvent) => {
    const box = svg.getBoundingClientRect();
    const px = ((e.clientX - box.left) / box.width) * width;
    const t =
      times[0]! + ((px - MARGIN.left) / (width - MARGIN.left - MARGIN.right)) * (times.at(-1)! - times[0]!);
    current = show(nearest(times, t));
  };
  svg.onkeydown = (e: KeyboardEvent) => {
    const moves: Record<string, number> = {
      ArrowLeft: -1,
      ArrowRight: 1,
      Home: -times.length,
      End: times.length,
    };
    if (!(e.key in moves)) return;
    e.preventDefault();
    current = show(current + moves[e.key]!);
  };
  show(current);
}

/**
 * A chart of our own in SVG, drawn at the size of its box and again whenever the box changes size:
 * time and value axes with ticks, the catalogue's unit, candles (one series of bars) or lines (one
 * per series, with a legend), and a readout of the time and value under the pointer or the arrow
 * keys.
 */
export function chart(spec: ChartSpec): HTMLElement {
  const points = spec.series.flatMap((s) => s.points);
  const times = points.map((p) => p.t);
  const svg = svgEl('svg', {
    class: 'chart',
    role: 'img',
    tabindex: 0,
    'aria-label': `${spec.title}: ${points.length} points from ${new Date(Math.min(...times)).toISOString()} to ${new Date(Math.max(...times)).toISOString()}, in ${spec.unit}`,
  });
  const readout = h('p', { class: 'readout', 'data-testid': 'chart-readout', 'aria-live': 'polite' });
  const legend =
    spec.series.length > 1
      ? h(
          'ul',
          { class: 'legend', 'data-testid': 'chart-legend' },
          ...spec.series.map((s, i) =>
            h('li', { class: `series-${i}` }, h('span', { class: 'swatch' }), s.name),
          ),
        )
      : null;
  const box = h('div', { class: 'chart-box', 'data-testid': 'chart' }, svg, legend, readout);
  let drawn = 0;
  const redraw = () => {
    const width = Math.round(box.clientWidth);
    if (width === 0 || width === drawn) return;
    drawn = width;
    draw(svg, spec, width, Math.round(Math.min(360, Math.max(220, width * 0.45))), readout);
  };
  new ResizeObserver(redraw).observe(box);
  return box;
}
