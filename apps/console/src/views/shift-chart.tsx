import type { Shift } from '../api/oncall';
import { formatShiftTime, viewerZone } from './times';

const HOUR_MS = 60 * 60 * 1000;

const hours = (ms: number) => Math.round((ms / HOUR_MS) * 10) / 10;

/** The picture in words: who holds how much of the window, and how long no one does. */
function summary(shifts: Shift[], window: { from: Date; to: Date }, users: string[]): string {
  const total = window.to.getTime() - window.from.getTime();
  const held = (user: string) => shifts.filter((s) => s.user === user).reduce((sum, s) => sum + Date.parse(s.end) - Date.parse(s.start), 0);
  const parts = users.map((user) => `${user} ${hours(held(user))} hours in ${shifts.filter((s) => s.user === user).length} shift(s)`);
  const uncovered = total - users.reduce((sum, user) => sum + held(user), 0);
  const days = window.from.toLocaleDateString(undefined, { weekday: 'short', month: 'short', day: 'numeric' });
  return `Final shifts for two weeks from ${days}: ${parts.length ? parts.join('; ') : 'no one'}${uncovered > 0 && parts.length ? `; no one for ${hours(uncovered)} hours` : ''}. Each shift is listed in the table below.`;
}

/**
 * The final shifts of a window (overrides applied, as the api answers them)
 * as one row per person, bars where they are on call, a line at now. Drawn with
 * SVG attributes (no inline styles: the console's CSP allows none); the
 * picture is one image to assistive technology, named by its summary in words,
 * and the table after it lists every shift.
 */
export function ShiftChart({ shifts, window, now }: { shifts: Shift[]; window: { from: Date; to: Date }; now: Date }) {
  const from = window.from.getTime();
  const width = hours(window.to.getTime() - from);
  const x = (iso: string | Date) => Math.min(width, Math.max(0, hours(new Date(iso).getTime() - from)));
  const users = [...new Set(shifts.map((s) => s.user))];
  const days: Date[] = [];
  for (let day = new Date(window.from); day < window.to; day = new Date(day.getFullYear(), day.getMonth(), day.getDate() + 1)) days.push(day);
  const nowAt = now >= window.from && now < window.to ? x(now) : null;
  const track = (bars: Shift[]) => (
    <svg class="chart-track" viewBox={`0 0 ${width} 10`} preserveAspectRatio="none" focusable="false">
      {days.map((day, i) => i > 0 && <line key={i} class="chart-day-line" x1={x(day)} x2={x(day)} y1={0} y2={10} vector-effect="non-scaling-stroke" />)}
      {bars.map((s) => (
        <rect key={s.start} class="chart-bar" x={x(s.start)} y={1.5} width={Math.max(0.5, x(s.end) - x(s.start))} height={7} />
      ))}
      {nowAt !== null && <line class="chart-now" x1={nowAt} x2={nowAt} y1={0} y2={10} vector-effect="non-scaling-stroke" />}
    </svg>
  );
  return (
    <figure class="shift-chart">
      <div role="img" aria-label={summary(shifts, window, users)} class="chart">
        <div class="chart-row chart-head">
          <span />
          <div class="chart-days">
            {days.map((day) => (
              <span key={day.getTime()} class={day.getDay() === 1 ? 'chart-monday' : ''}>
                {day.toLocaleDateString(undefined, { weekday: 'narrow' })}
                <br />
                {day.getDate()}
              </span>
            ))}
          </div>
        </div>
        {users.length === 0 ? (
          <div class="chart-row">
            <span class="chart-user">No one</span>
            {track([])}
          </div>
        ) : (
          users.map((user) => (
            <div class="chart-row" key={user}>
              <span class="chart-user">{user}</span>
              {track(shifts.filter((s) => s.user === user))}
            </div>
          ))
        )}
      </div>
      <figcaption class="muted">
        Days and times in your time zone ({viewerZone()}); the red line is now.
      </figcaption>
      <details class="chart-table">
        <summary>The shifts as a table</summary>
        <table>
          <caption>Final shifts, two weeks</caption>
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">From</th>
              <th scope="col">Until</th>
            </tr>
          </thead>
          <tbody>
            {shifts.length === 0 ? (
              <tr>
                <td colSpan={3}>No one is on call in these two weeks.</td>
              </tr>
            ) : (
              shifts.map((s) => (
                <tr key={s.start}>
                  <td>{s.user}</td>
                  <td>
                    <time dateTime={s.start}>{formatShiftTime(s.start)}</time>
                  </td>
                  <td>
                    <time dateTime={s.end}>{formatShiftTime(s.end)}</time>
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
