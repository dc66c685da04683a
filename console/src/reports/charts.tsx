import type { Report } from '@ticketing/server/model';

// Plain SVG, no chart library: three small shapes do not earn a dependency. Every chart is
// aria-hidden and sits beside a table with the same numbers, which is its text alternative; colours
// come from classes (reports.css), never from style attributes (the console's CSP has no inline styles).

const DAY_W = 24;
const BAR_W = 9;
const PLOT_H = 150;

/** A round top for the y axis: 1, 2, 5, 10, 20, 50, … at or above `n`. */
function niceMax(n: number): number {
  if (n <= 1) return 1;
  const base = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * base >= n) return step * base;
  return 10 * base;
}

/**
 * Opened and closed side by side for every day. The bars stretch to the width there is (the SVG keeps
 * no aspect ratio); the axis labels are HTML beside and below it, so text never stretches with them.
 */
export function DayBars({
  days,
  dayLabel,
  tip,
}: {
  days: Report['days'];
  dayLabel: (date: string) => string;
  /** A pointer's tooltip for one day (the table says the same to everyone). */
  tip: (day: Report['days'][number]) => string;
}) {
  const top = niceMax(Math.max(0, ...days.flatMap((d) => [d.opened, d.closed])));
  const width = Math.max(days.length, 1) * DAY_W;
  const h = (n: number) => (n / top) * PLOT_H;
  const every = Math.ceil(days.length / 7);
  return (
    <div class="day-chart" aria-hidden="true">
      <div class="y-axis">
        <span>{top}</span>
        <span>{Number.isInteger(top / 2) ? top / 2 : ''}</span>
        <span>0</span>
      </div>
      <div class="plot">
        <svg class="chart day-bars" viewBox={`0 0 ${width} ${PLOT_H}`} preserveAspectRatio="none" focusable="false">
          {[0, PLOT_H / 2].map((y) => (
            <line key={y} class="grid" x1="0" x2={width} y1={y + 0.5} y2={y + 0.5} vector-effect="non-scaling-stroke" />
          ))}
          <line class="base" x1="0" x2={width} y1={PLOT_H} y2={PLOT_H} vector-effect="non-scaling-stroke" />
          {days.map((d, i) => {
            const x = i * DAY_W + (DAY_W - 2 * BAR_W) / 2;
            return (
              <g key={d.date}>
                <title>{tip(d)}</title>
                <rect class="opened" x={x} y={PLOT_H - h(d.opened)} width={BAR_W} height={h(d.opened)} />
                <rect class="closed" x={x + BAR_W} y={PLOT_H - h(d.closed)} width={BAR_W} height={h(d.closed)} />
              </g>
            );
          })}
        </svg>
        <div class="x-axis">
          {days.map((d, i) => (
            <span key={d.date}>{i % every === 0 ? dayLabel(d.date) : ''}</span>
          ))}
        </div>
      </div>
    </div>
  );
}

/** The ratings as one bar split by score (1 to 5), each part as wide as its share. */
export function ScoreBar({ distribution }: { distribution: Report['csat']['distribution'] }) {
  const total = distribution.reduce((n, d) => n + d.count, 0);
  let x = 0;
  return (
    <svg class="chart score-bar" viewBox="0 0 400 28" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect class="empty" x="0" y="0" width="400" height="28" rx="4" />
      {total > 0 &&
        distribution.map((d) => {
          const w = (d.count / total) * 400;
          const part = <rect key={d.score} class={`s${d.score}`} x={x} y="0" width={w} height="28" />;
          x += w;
          return part;
        })}
    </svg>
  );
}

/** One horizontal bar per row, as long as its count against the largest. */
export function CountBars({ rows }: { rows: { label: string; count: number }[] }) {
  const top = Math.max(1, ...rows.map((r) => r.count));
  const rowH = 26;
  return (
    <svg
      class="chart count-bars"
      viewBox={`0 0 320 ${Math.max(1, rows.length) * rowH}`}
      aria-hidden="true"
      focusable="false"
    >
      {rows.map((r, i) => (
        <g key={r.label}>
          <text class="label" x="0" y={i * rowH + 17}>
            {r.label.length > 14 ? `${r.label.slice(0, 13)}…` : r.label}
          </text>
          <rect class="bar" x="110" y={i * rowH + 4} width={(r.count / top) * 170} height={rowH - 8} rx="3" />
          <text class="axis" x={110 + (r.count / top) * 170 + 6} y={i * rowH + 17}>
            {r.count}
          </text>
        </g>
      ))}
    </svg>
  );
}
