import type { Ref } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { MetricsGroup } from '../api/insights';
import { axisTicks, formatDuration, unitFor } from './chart-scale';

/**
 * The Insights charts, drawn as SVG in pixels of the width they have (text
 * stays its size on a phone), with attributes and classes only: the console's
 * CSP allows no inline styles. As the on-call picture (shift-chart.tsx), each
 * chart is one image to assistive technology, named by its summary in words,
 * and a table after it holds every number.
 */

/** The width of the element, followed as it changes (a phone turned, a window resized). */
function useWidth(): [Ref<HTMLDivElement>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** A legend's swatch: decoration, the words beside it say what it is. */
const Swatch = ({ class: name, dashed = false, marker }: { class: string; dashed?: boolean; marker?: 'circle' | 'square' }) => (
  <svg class={`chart-swatch ${name}`} viewBox="0 0 24 12" width="24" height="12" aria-hidden="true" focusable="false">
    {marker ? <line x1={0} x2={24} y1={6} y2={6} stroke-dasharray={dashed ? '4 3' : undefined} /> : <rect x={0} y={1} width={24} height={10} />}
    {marker === 'circle' && <circle cx={12} cy={6} r={4} />}
    {marker === 'square' && <rect x={8} y={2} width={8} height={8} />}
  </svg>
);

/** The table after a chart, folded; wider than a phone it scrolls by itself, reachable by keyboard. */
function TableFold({ label, children }: { label: string; children: preact.ComponentChildren }) {
  return (
    <details class="chart-table">
      <summary>{label}</summary>
      <div class="table-scroll" role="region" aria-label={label} tabIndex={0}>
        {children}
      </div>
    </details>
  );
}

export type TimeMeasure = 'time_to_acknowledge' | 'time_to_resolve';

const MEASURES: Record<TimeMeasure, { title: string; done: 'acknowledged' | 'resolved' }> = {
  time_to_acknowledge: { title: 'Time to acknowledge', done: 'acknowledged' },
  time_to_resolve: { title: 'Time to resolve', done: 'resolved' },
};

interface WeekRow {
  week: string;
  incidents: number;
  done: number;
  p50: number | null;
  p90: number | null;
  mean: number | null;
}

/** Every week of the window, those without an incident (which the api does not answer) included. */
function weekRows(weeks: string[], groups: MetricsGroup[], measure: TimeMeasure): WeekRow[] {
  const byWeek = new Map(groups.map((group) => [group.key, group]));
  return weeks.map((week) => {
    const group = byWeek.get(week);
    const times = group?.[measure] ?? { p50: null, p90: null, mean: null };
    return { week, incidents: group?.incidents ?? 0, done: group?.[MEASURES[measure].done] ?? 0, ...times };
  });
}

/** Of the rows with a value, the one where `pick` is extreme. */
function extreme(rows: WeekRow[], pick: (row: WeekRow) => number | null, sign: 1 | -1): WeekRow {
  return rows.reduce((best, row) => (sign * (pick(row) ?? 0) > sign * (pick(best) ?? 0) ? row : best));
}

function weeklySummary(rows: WeekRow[], measure: TimeMeasure): string {
  const { title, done } = MEASURES[measure];
  const span = `${title} per ISO week, ${rows[0].week} to ${rows[rows.length - 1].week} (UTC)`;
  const timed = rows.filter((row) => row.p50 !== null);
  if (timed.length === 0) return `${span}: no incident declared in these weeks was ${done}.`;
  const [low, high, worst] = [extreme(timed, (r) => r.p50, -1), extreme(timed, (r) => r.p50, 1), extreme(timed, (r) => r.p90, 1)];
  const median = low === high ? `${formatDuration(low.p50)} (${low.week})` : `from ${formatDuration(low.p50)} (${low.week}) to ${formatDuration(high.p50)} (${high.week})`;
  return `${span}, in the ${timed.length} of ${rows.length} weeks with incidents ${done}: median (p50) ${median}; 90th percentile (p90) at most ${formatDuration(worst.p90)} (${worst.week}). Each week's figures are in the table below.`;
}

const HEIGHT = 220;
const MARGIN = { top: 12, right: 12, bottom: 28, left: 56 };

/** Points joined while they follow each other; a week without a value breaks the line. */
function linePath(points: ({ x: number; y: number } | null)[]): string {
  return points.map((point, i) => (point ? `${points[i - 1] ? 'L' : 'M'}${point.x.toFixed(1)} ${point.y.toFixed(1)}` : '')).join('');
}

/** p50 and p90 per ISO week as two lines (solid with circles, dashed with squares), the weeks without a value left open. */
export function WeeklyTimesChart({ weeks, groups, measure }: { weeks: string[]; groups: MetricsGroup[]; measure: TimeMeasure }) {
  const [ref, width] = useWidth();
  const rows = weekRows(weeks, groups, measure);
  const max = Math.max(0, ...rows.flatMap((row) => [row.p50 ?? 0, row.p90 ?? 0]));
  const unit = unitFor(max);
  const ticks = axisTicks(max, unit);
  const top = ticks[ticks.length - 1];
  const plot = { width: Math.max(0, width - MARGIN.left - MARGIN.right), height: HEIGHT - MARGIN.top - MARGIN.bottom };
  const x = (i: number) => MARGIN.left + ((i + 0.5) * plot.width) / rows.length;
  const y = (seconds: number) => MARGIN.top + plot.height * (1 - seconds / top);
  const at = (pick: (row: WeekRow) => number | null) => rows.map((row, i) => (pick(row) === null ? null : { x: x(i), y: y(pick(row)!) }));
  const [p50, p90] = [at((row) => row.p50), at((row) => row.p90)];
  // About 40 px a label; the newest week always has one.
  const every = Math.max(1, Math.ceil((rows.length * 40) / Math.max(1, plot.width)));
  const { title, done } = MEASURES[measure];
  return (
    <figure class="insights-chart">
      <div ref={ref}>
        {width > 0 && (
          <svg class="chart-svg" role="img" aria-label={weeklySummary(rows, measure)} width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`} data-chart={measure}>
            {ticks.map((tick) => (
              <g key={tick}>
                <line class="chart-grid" x1={MARGIN.left} x2={width - MARGIN.right} y1={y(tick)} y2={y(tick)} />
                <text class="chart-tick" x={MARGIN.left - 6} y={y(tick)} dy="0.32em" text-anchor="end">
                  {formatDuration(tick).replace(/^0 \w+$/, '0')}
                </text>
              </g>
            ))}
            {rows.map(
              (row, i) =>
                (rows.length - 1 - i) % every === 0 && (
                  <text key={row.week} class="chart-tick" x={x(i)} y={HEIGHT - 8} text-anchor="middle">
                    {row.week.slice(5)}
                  </text>
                ),
            )}
            <path class="chart-line chart-p90" d={linePath(p90)} stroke-dasharray="6 4" />
            <path class="chart-line chart-p50" d={linePath(p50)} />
            {p90.map((point, i) => point && <rect key={`p90-${i}`} class="chart-p90" x={point.x - 4} y={point.y - 4} width={8} height={8} data-week={rows[i].week} />)}
            {p50.map((point, i) => point && <circle key={`p50-${i}`} class="chart-p50" cx={point.x} cy={point.y} r={4.5} data-week={rows[i].week} />)}
          </svg>
        )}
      </div>
      <figcaption class="chart-legend">
        <span>
          <Swatch class="chart-p50" marker="circle" /> median (p50)
        </span>
        <span>
          <Swatch class="chart-p90" marker="square" dashed /> 90th percentile (p90)
        </span>
        <span class="muted">by the ISO week (UTC) incidents were declared in; a week without a point had none {done}</span>
      </figcaption>
      <TableFold label={`${title} as a table`}>
        <table>
          <caption>{title} per ISO week</caption>
          <thead>
            <tr>
              <th scope="col">Week</th>
              <th scope="col">Incidents</th>
              <th scope="col">{done === 'acknowledged' ? 'Acknowledged' : 'Resolved'}</th>
              <th scope="col">p50</th>
              <th scope="col">p90</th>
              <th scope="col">Mean</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.week}>
                <th scope="row">{row.week}</th>
                <td>{row.incidents}</td>
                <td>{row.done}</td>
                <td>{formatDuration(row.p50)}</td>
                <td>{formatDuration(row.p90)}</td>
                <td>{formatDuration(row.mean)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableFold>
    </figure>
  );
}

const serviceName = (key: string | null) => key ?? 'No service';

const COUNTS = [
  { field: 'incidents', label: 'incidents', class: 'chart-incidents' },
  { field: 'acknowledged', label: 'acknowledged', class: 'chart-acknowledged' },
  { field: 'resolved', label: 'resolved', class: 'chart-resolved' },
] as const;

function servicesSummary(groups: MetricsGroup[], span: string): string {
  if (groups.length === 0) return `Incidents per service, ${span}: none.`;
  const each = groups.map((group) => `${serviceName(group.key)} ${group.incidents}, of them ${group.acknowledged} acknowledged and ${group.resolved} resolved`);
  return `Incidents per service, ${span}: ${each.join('; ')}. Each service's figures are in the table below.`;
}

const ROW = { label: 20, bar: 12, gap: 3, after: 14 };
const ROW_HEIGHT = ROW.label + COUNTS.length * (ROW.bar + ROW.gap) + ROW.after;
/** Room after the longest bar for its number. */
const VALUE_ROOM = 36;

/** Incidents, acknowledged and resolved per service as three bars a service, most incidents first, each bar with its number. */
export function ServiceCountsChart({ groups, span }: { groups: MetricsGroup[]; span: string }) {
  const [ref, width] = useWidth();
  const services = [...groups].sort((a, b) => b.incidents - a.incidents || serviceName(a.key).localeCompare(serviceName(b.key)));
  const most = Math.max(1, ...services.map((group) => group.incidents));
  const length = (n: number) => (n / most) * Math.max(0, width - VALUE_ROOM);
  const height = services.length * ROW_HEIGHT;
  return (
    <figure class="insights-chart">
      <div ref={ref}>
        {services.length === 0 ? (
          <p>No incident was declared in these weeks.</p>
        ) : (
          width > 0 && (
            <svg class="chart-svg" role="img" aria-label={servicesSummary(services, span)} width={width} height={height} viewBox={`0 0 ${width} ${height}`} data-chart="services">
              {services.map((group, row) => (
                <g key={group.key ?? ''} transform={`translate(0 ${row * ROW_HEIGHT})`} data-service={serviceName(group.key)}>
                  <text class="chart-label" x={0} y={ROW.label - 6}>
                    {serviceName(group.key)}
                  </text>
                  {COUNTS.map((count, i) => {
                    const top = ROW.label + i * (ROW.bar + ROW.gap);
                    return (
                      <g key={count.field}>
                        <rect class={count.class} x={0} y={top} width={Math.max(1, length(group[count.field]))} height={ROW.bar} />
                        <text class="chart-value" x={length(group[count.field]) + 4} y={top + ROW.bar / 2} dy="0.32em">
                          {group[count.field]}
                        </text>
                      </g>
                    );
                  })}
                </g>
              ))}
            </svg>
          )
        )}
      </div>
      <figcaption class="chart-legend">
        {COUNTS.map((count) => (
          <span key={count.field}>
            <Swatch class={count.class} /> {count.label}
          </span>
        ))}
        <span class="muted">bars in this order for each service</span>
      </figcaption>
      <TableFold label="Incidents per service as a table">
        <table>
          <caption>Incidents per service</caption>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Incidents</th>
              <th scope="col">Acknowledged</th>
              <th scope="col">Resolved</th>
            </tr>
          </thead>
          <tbody>
            {services.length === 0 ? (
              <tr>
                <td colSpan={4}>No incident was declared in these weeks.</td>
              </tr>
            ) : (
              services.map((group) => (
                <tr key={group.key ?? ''}>
                  <th scope="row">{serviceName(group.key)}</th>
                  <td>{group.incidents}</td>
                  <td>{group.acknowledged}</td>
                  <td>{group.resolved}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableFold>
    </figure>
  );
}
