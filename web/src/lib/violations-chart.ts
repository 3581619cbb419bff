/**
 * "Violations over time" drawn by uPlot: loaded by the portfolio page with a dynamic import(), so
 * uPlot (and its stylesheet) is a chunk of its own and the console's first load stays small. The
 * canvas is named for screen readers (role img); the page shows the same days as a table on demand.
 */
// First: it makes navigator.language one Intl accepts before uPlot reads it.
import './intl-language.ts';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartDay {
  readonly date: string;
  readonly detected: number;
  readonly resolved: number;
  readonly active: number;
}

/** The series: colour, and a line style of their own, so colour is not all that tells them apart. */
export const CHART_SERIES = [
  { key: 'active', label: 'Active at end of day', stroke: '#0b5cad', width: 3, dash: undefined },
  { key: 'detected', label: 'Detected', stroke: '#c62828', width: 2, dash: [8, 4] },
  { key: 'resolved', label: 'Resolved', stroke: '#2e7d32', width: 2, dash: [2, 3] },
] as const;

export interface DrawnChart {
  resize(width: number): void;
  destroy(): void;
}

/** Draws the days into `target`, `width` CSS pixels wide; `name` is the canvas's accessible name. */
export function drawViolationsChart(target: HTMLElement, days: readonly ChartDay[], width: number, name: string): DrawnChart {
  const xs = days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000);
  const data: uPlot.AlignedData = [xs, ...CHART_SERIES.map((series) => days.map((day) => day[series.key]))];
  const chart = new uPlot(
    {
      width,
      height: 260,
      legend: { show: false },
      cursor: { show: false },
      // Days are UTC dates: shown as such, wherever the browser is.
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] } },
      axes: [
        { stroke: '#4f5862', grid: { stroke: '#e1e6eb' } },
        { stroke: '#4f5862', grid: { stroke: '#e1e6eb' }, values: (_u, splits) => splits.map((value) => (Number.isInteger(value) ? String(value) : '')) },
      ],
      series: [{}, ...CHART_SERIES.map((series) => ({ label: series.label, stroke: series.stroke, width: series.width, ...(series.dash ? { dash: [...series.dash] } : {}), points: { show: days.length <= 31 } }))],
    },
    data,
    target,
  );
  const canvas = chart.root.querySelector('canvas');
  canvas?.setAttribute('role', 'img');
  canvas?.setAttribute('aria-label', name);
  return {
    resize: (next) => chart.setSize({ width: next, height: 260 }),
    destroy: () => chart.destroy(),
  };
}
