import type { Report } from '@ticketing/server/model';

// Plain SVG, no chart library: three small shapes do not earn a dependency. Every chart is
// aria-hidden and sits beside a table with the same numbers, which is its text alternative; colours
// come from classes (reports.css), never from style attributes (the console's CSP has no inline styles).

const DAY_W = 24;
const BAR_W = 9;
const PLOT_H = 150;
const AXIS_W = 30;
const LABEL_H = 22;

/** A round top for the y axis: 1, 2, 5, 10, 20, 50, … at or above `n`. */
function niceMax(n: number): number {
  if (n <= 1) return 1;
  const base = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * base >= n) return step * base;
  return 10 * base;
}

/** Opened and closed side by side for every day, with the axis's top and a few dates. */
export function DayBars({ days, dayLabel }: { days: Report['days']; dayLabel: (date: string) => string }) {
  const top = niceMax(Math.max(0, ...days.flatMap((d) => [d.opened, d.closed])));
  const width = AXIS_W + Math.max(days.length, 7) * DAY_W;
  const h = (n: number) => (n / top) * PLOT_H;
  const every = Math.ceil(days.length / 7);
  return (
    <svg class="chart day-bars" viewBox={`0 0 ${width} ${PLOT_H + LABEL_H + 8}`} aria-hidden="true" focusable="false">
      {[top, top / 2].map((v) => (
        <g key={v}>
          <line class="grid" x1={AXIS_W} x2={width} y1={8 + PLOT_H - h(v)} y2={8 + PLOT_H - h(v)} />
          <text class="axis" x={AXIS_W - 4} y={8 + PLOT_H - h(v) + 4} text-anchor="end">
            {Number.isInteger(v) ? v : ''}
          </text>
        </g>
      ))}
      <line class="base" x1={AXIS_W} x2={width} y1={8 + PLOT_H} y2={8 + PLOT_H} />
      {days.map((d, i) => {
        const x = AXIS_W + i * DAY_W + (DAY_W - 2 * BAR_W) / 2;
        return (
          <g key={d.date}>
            <rect class="opened" x={x} y={8 + PLOT_H - h(d.opened)} width={BAR_W} height={h(d.opened)} />
            <rect class="closed" x={x + BAR_W} y={8 + PLOT_H - h(d.closed)} width={BAR_W} height={h(d.closed)} />
            {i % every === 0 && (
              <text class="axis" x={x + BAR_W} y={8 + PLOT_H + 16} text-anchor="middle">
                {dayLabel(d.date)}
              </text>
            )}
          </g>
        );
      })}
    </svg>
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
      viewBox={`0 0 400 ${Math.max(1, rows.length) * rowH}`}
      aria-hidden="true"
      focusable="false"
    >
      {rows.map((r, i) => (
        <g key={r.label}>
          <text class="label" x="0" y={i * rowH + 17}>
            {r.label.length > 16 ? `${r.label.slice(0, 15)}…` : r.label}
          </text>
          <rect class="bar" x="130" y={i * rowH + 4} width={(r.count / top) * 230} height={rowH - 8} rx="3" />
          <text class="axis" x={130 + (r.count / top) * 230 + 6} y={i * rowH + 17}>
            {r.count}
          </text>
        </g>
      ))}
    </svg>
  );
}
