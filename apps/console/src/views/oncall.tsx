import { MY_ON_CALL } from '../api/documents';
import { runGraphql } from '../api/graphql';
import { listSchedules, onCallNow, readShifts, type Schedule, type Shift } from '../api/oncall';
import { canAdminOnCall, type Session } from '../session';
import { ErrorMessage } from './error-message';
import { aheadOf, formatShiftTime } from './times';
import { useLoaded } from './use-loaded';

interface OnCallRow {
  schedule: Schedule;
  now: string | null;
  /** The shift running now, if any (its end is when the hand-off comes). */
  current: Shift | undefined;
  next: Shift | undefined;
}

/** Who is on call now (the api's answer for now) and the shift after the current one, in the next two weeks. */
async function onCallRows(token: string): Promise<OnCallRow[]> {
  const schedules = await listSchedules(token);
  const now = new Date();
  return Promise.all(
    schedules.map(async (schedule) => {
      const [user, shifts] = await Promise.all([onCallNow(token, schedule.id), readShifts(token, schedule.id, aheadOf(now))]);
      const current = shifts.find((shift) => Date.parse(shift.start) <= now.getTime() && now.getTime() < Date.parse(shift.end));
      return { schedule, now: user, current, next: shifts.find((shift) => Date.parse(shift.start) > now.getTime()) };
    }),
  );
}

function ScheduleRow({ row }: { row: OnCallRow }) {
  return (
    <li class="card oncall-row" data-schedule={row.schedule.name}>
      <h3>
        <a href={`/oncall/schedules/${encodeURIComponent(row.schedule.id)}`}>{row.schedule.name}</a>
      </h3>
      <dl class="facts">
        <div>
          <dt>On call now</dt>
          <dd data-testid="now">
            {row.now ?? 'No one'}
            {row.now && row.current && <span class="muted"> until {formatShiftTime(row.current.end)}</span>}
          </dd>
        </div>
        <div>
          <dt>Next</dt>
          <dd data-testid="next">
            {row.next ? (
              <>
                {row.next.user} <span class="muted">from {formatShiftTime(row.next.start)}</span>
              </>
            ) : (
              'No one in the next two weeks'
            )}
          </dd>
        </div>
      </dl>
    </li>
  );
}

/** The caller's own shifts for the coming week, across schedules (GraphQL myOnCall). */
function MyShifts({ session }: { session: Session }) {
  const mine = useLoaded(() => runGraphql(MY_ON_CALL, {}, session.token), session.token);
  const shifts = mine.data?.myOnCall;
  return (
    <section aria-labelledby="my-shifts-heading">
      <h2 id="my-shifts-heading">My shifts</h2>
      <ErrorMessage error={mine.error} />
      {!shifts ? (
        !mine.error && <p aria-live="polite">Loading…</p>
      ) : shifts.length === 0 ? (
        <p class="card">You have no shifts in the next 7 days.</p>
      ) : (
        <ul class="shift-list" aria-label="My shifts in the next 7 days">
          {shifts.map((shift) => (
            <li key={`${shift.scheduleId}-${shift.start}`} class="card">
              <a href={`/oncall/schedules/${encodeURIComponent(shift.scheduleId)}`}>{shift.scheduleName}</a>
              <span>
                {formatShiftTime(shift.start)} – {formatShiftTime(shift.end)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Who is on call now and next in each schedule, the caller's own shifts, and the way to the on-call configuration. */
export function OnCall({ session }: { session: Session }) {
  const rows = useLoaded(() => onCallRows(session.token), session.token);
  return (
    <main id="main">
      <h1>On call</h1>
      <nav aria-label="On-call configuration" class="actions sub-nav">
        <a href="/oncall/services">Services</a>
        <a href="/oncall/policies">Escalation policies</a>
        {canAdminOnCall(session) && <a href="/oncall/schedules/new">New schedule</a>}
      </nav>
      <MyShifts session={session} />
      <section aria-labelledby="schedules-heading">
        <h2 id="schedules-heading">Schedules</h2>
        <ErrorMessage error={rows.error} />
        {!rows.data ? (
          !rows.error && <p aria-live="polite">Loading…</p>
        ) : rows.data.length === 0 ? (
          <p class="card">No schedule yet.{canAdminOnCall(session) ? ' Create one with “New schedule”.' : ''}</p>
        ) : (
          <ul class="oncall-list" aria-label="Who is on call, per schedule">
            {rows.data.map((row) => (
              <ScheduleRow key={row.schedule.id} row={row} />
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
