import { useState } from 'preact/hooks';
import {
  createOverride,
  createSchedule,
  DAYS,
  type Day,
  deleteOverride,
  deleteSchedule,
  type Override,
  readSchedule,
  readShifts,
  type Schedule,
  type ScheduleInput,
  updateSchedule,
} from '../api/oncall';
import { navigate } from '../router';
import { canAdminOnCall, type Session } from '../session';
import { removed, replaced, useSubmit } from './config-list';
import { ConfirmButton } from './confirm';
import { ErrorMessage } from './error-message';
import { FieldError, fieldErrors, fieldId, invalid, TextField } from './fields';
import { ShiftChart } from './shift-chart';
import { formatShiftTime, fromLocalInput, toLocalInput, twoWeeks } from './times';
import { useLoaded } from './use-loaded';

type Unit = 'hours' | 'days' | 'weeks';
interface RestrictionDraft {
  days: Day[];
  from: string;
  to: string;
}
interface LayerDraft {
  name: string;
  /** As the date-time field holds it: the viewer's zone. */
  start: string;
  every: string;
  unit: Unit;
  /** Comma-separated, in rotation order. */
  users: string;
  restrictions: RestrictionDraft[];
}
interface ScheduleDraft {
  name: string;
  time_zone: string;
  layers: LayerDraft[];
}

const UNITS: Unit[] = ['hours', 'days', 'weeks'];

const newLayer = (n: number): LayerDraft => ({ name: `Layer ${n}`, start: toLocalInput(twoWeeks(new Date()).from), every: '1', unit: 'weeks', users: '', restrictions: [] });

const draftOf = (schedule: Schedule | undefined): ScheduleDraft =>
  schedule
    ? {
        name: schedule.name,
        time_zone: schedule.time_zone,
        layers: schedule.layers.map((layer) => ({
          name: layer.name,
          start: toLocalInput(layer.start),
          every: String(layer.rotation.every),
          unit: layer.rotation.unit,
          users: layer.users.join(', '),
          restrictions: (layer.restrictions ?? []).map((r) => ({ days: r.days, from: r.from, to: r.to })),
        })),
      }
    : { name: '', time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone, layers: [newLayer(1)] };

/** The body as the api takes it; what does not parse is sent as typed, and the api's 400 names the field. */
const bodyOf = (draft: ScheduleDraft): ScheduleInput => ({
  name: draft.name,
  time_zone: draft.time_zone,
  layers: draft.layers.map((layer) => ({
    name: layer.name,
    start: fromLocalInput(layer.start),
    rotation: { every: Number(layer.every), unit: layer.unit },
    users: layer.users.split(',').map((user) => user.trim()).filter(Boolean),
    ...(layer.restrictions.length ? { restrictions: layer.restrictions } : {}),
  })),
});

const ZONES: string[] = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];

/** Creates a schedule or replaces its name, zone and layers (oncall.admin). */
function ScheduleForm({ session, schedule, onSaved }: { session: Session; schedule?: Schedule; onSaved: (saved: Schedule) => void }) {
  const [draft, setDraft] = useState(() => draftOf(schedule));
  const { error, busy, submit } = useSubmit(
    async () => onSaved(schedule ? await updateSchedule(session.token, schedule.id, bodyOf(draft)) : await createSchedule(session.token, bodyOf(draft))),
    () => undefined,
  );
  const errors = fieldErrors(error);
  const form = 'schedule';
  const setLayer = (i: number, layer: Partial<LayerDraft>) => setDraft({ ...draft, layers: replaced(draft.layers, i, { ...draft.layers[i], ...layer }) });

  return (
    <form class="card" onSubmit={submit} aria-labelledby="schedule-form-heading" noValidate>
      <h2 id="schedule-form-heading">{schedule ? 'Edit the schedule' : 'The schedule'}</h2>
      <TextField form={form} path="name" label="Name" value={draft.name} required error={errors.at('name')} onInput={(name) => setDraft({ ...draft, name })} />
      <TextField form={form} path="time_zone" label="Time zone (IANA name, e.g. Europe/Berlin)" value={draft.time_zone} list="time-zones" required error={errors.at('time_zone')} onInput={(time_zone) => setDraft({ ...draft, time_zone })} />
      <datalist id="time-zones">
        {ZONES.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      {draft.layers.map((layer, i) => {
        const at = (field: string) => `layers[${i}].${field}`;
        const unitId = fieldId(form, at('rotation.unit'));
        const unitError = errors.at(at('rotation.unit'));
        return (
          <fieldset key={i} class="layer">
            <legend>Layer {i + 1}{draft.layers.length > 1 && i === draft.layers.length - 1 ? ' (wins where it has someone)' : ''}</legend>
            <TextField form={form} path={at('name')} label="Layer name" value={layer.name} error={errors.at(at('name'))} onInput={(name) => setLayer(i, { name })} />
            <TextField form={form} path={at('start')} type="datetime-local" label="First hand-off (your time)" value={layer.start} error={errors.at(at('start'))} onInput={(start) => setLayer(i, { start })} />
            <div class="inline-form">
              <TextField form={form} path={at('rotation.every')} type="number" min={1} max={365} label="Hand off every" value={layer.every} error={errors.at(at('rotation.every'))} onInput={(every) => setLayer(i, { every })} />
              <div class="field">
                <label for={unitId}>Unit</label>
                <select id={unitId} name={at('rotation.unit')} value={layer.unit} onChange={(e) => setLayer(i, { unit: e.currentTarget.value as Unit })} {...invalid(unitId, unitError)}>
                  {UNITS.map((unit) => (
                    <option key={unit} value={unit}>
                      {unit}
                    </option>
                  ))}
                </select>
                <FieldError id={unitId} error={unitError} />
              </div>
            </div>
            <TextField form={form} path={at('users')} label="Who, in rotation order (comma-separated)" value={layer.users} error={errors.at(at('users'))} onInput={(users) => setLayer(i, { users })} />
            {layer.restrictions.map((restriction, j) => {
              const r = (field: string) => at(`restrictions[${j}].${field}`);
              const setRestriction = (change: Partial<RestrictionDraft>) => setLayer(i, { restrictions: replaced(layer.restrictions, j, { ...restriction, ...change }) });
              const daysId = fieldId(form, r('days'));
              const daysError = errors.at(r('days'));
              return (
                <fieldset key={j} class="restriction" {...invalid(daysId, daysError)}>
                  <legend>Only at these times ({j + 1})</legend>
                  <div class="days">
                    {DAYS.map((day) => (
                      <label class="check" key={day}>
                        <input
                          type="checkbox"
                          name={r('days')}
                          checked={restriction.days.includes(day)}
                          onChange={(e) => setRestriction({ days: e.currentTarget.checked ? DAYS.filter((d) => d === day || restriction.days.includes(d)) : restriction.days.filter((d) => d !== day) })}
                        />
                        {day}
                      </label>
                    ))}
                  </div>
                  <FieldError id={daysId} error={daysError} />
                  <div class="inline-form">
                    <TextField form={form} path={r('from')} type="time" label="From" value={restriction.from} error={errors.at(r('from'))} onInput={(from) => setRestriction({ from })} />
                    <TextField form={form} path={r('to')} type="time" label="Until (earlier: past midnight)" value={restriction.to} error={errors.at(r('to'))} onInput={(to) => setRestriction({ to })} />
                  </div>
                  <button type="button" class="secondary" onClick={() => setLayer(i, { restrictions: removed(layer.restrictions, j) })}>
                    Remove these times
                  </button>
                </fieldset>
              );
            })}
            <div class="actions">
              <button type="button" class="secondary" onClick={() => setLayer(i, { restrictions: [...layer.restrictions, { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' }] })}>
                Limit to certain times
              </button>
              {draft.layers.length > 1 && (
                <button type="button" class="secondary" onClick={() => setDraft({ ...draft, layers: removed(draft.layers, i) })}>
                  Remove layer {i + 1}
                </button>
              )}
            </div>
          </fieldset>
        );
      })}
      <button type="button" class="secondary" onClick={() => setDraft({ ...draft, layers: [...draft.layers, newLayer(draft.layers.length + 1)] })}>
        Add a layer
      </button>
      <ErrorMessage error={errors.rest()} />
      <div class="actions form-end">
        <button type="submit" disabled={busy}>
          {schedule ? 'Save schedule' : 'Create schedule'}
        </button>
      </div>
    </form>
  );
}

/** The layers in words, for those who may not edit them. */
function Layers({ schedule }: { schedule: Schedule }) {
  return (
    <section class="card" aria-labelledby="layers-heading">
      <h2 id="layers-heading">Layers</h2>
      <p class="muted">Time zone {schedule.time_zone}. Where layers overlap, the later one wins; an override wins over all.</p>
      <ol class="plain-list">
        {schedule.layers.map((layer) => (
          <li key={layer.name}>
            <strong>{layer.name}</strong>: {layer.users.join(', ')}, handing off every {layer.rotation.every} {layer.rotation.unit} from {formatShiftTime(layer.start)}
            {layer.restrictions?.map((r, i) => (
              <span key={i}>
                ; only {r.days.join(', ')} {r.from}–{r.to}
              </span>
            ))}
          </li>
        ))}
      </ol>
    </section>
  );
}

const nextHour = () => {
  const t = new Date();
  t.setMinutes(60, 0, 0);
  return t;
};

/** Overrides: anyone's by an oncall.admin; a responder takes a shift (or gives back one they took) themself. */
function Overrides({ session, schedule, onChange }: { session: Session; schedule: Schedule; onChange: () => void }) {
  const admin = canAdminOnCall(session);
  const [user, setUser] = useState(session.sub);
  const [start, setStart] = useState(() => toLocalInput(nextHour()));
  const [end, setEnd] = useState(() => toLocalInput(new Date(nextHour().getTime() + 8 * 60 * 60 * 1000)));
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState('');
  const errors = fieldErrors(error);
  const form = 'override';
  const submit = async (event: Event) => {
    event.preventDefault();
    try {
      await createOverride(session.token, schedule.id, { user, start: fromLocalInput(start), end: fromLocalInput(end) });
      setError(null);
      setMessage(user === session.sub ? 'You took the shift.' : `${user} takes the shift.`);
      onChange();
    } catch (refused) {
      setMessage('');
      setError(refused);
    }
  };
  const remove = async (override: Override) => {
    try {
      await deleteOverride(session.token, schedule.id, override.id);
      setError(null);
      setMessage('Override deleted.');
      onChange();
    } catch (refused) {
      setError(refused);
    }
  };
  const now = Date.now();
  return (
    <section class="card" aria-labelledby="overrides-heading">
      <h2 id="overrides-heading">Overrides</h2>
      {schedule.overrides.length === 0 ? (
        <p>No override.</p>
      ) : (
        <ul class="plain-list overrides" aria-label="Overrides">
          {schedule.overrides.map((override) => {
            const when = `${formatShiftTime(override.start)} – ${formatShiftTime(override.end)}`;
            return (
              <li key={override.id} data-override-user={override.user}>
                <span>
                  <strong>{override.user}</strong> {when}
                  {Date.parse(override.end) <= now && <span class="muted"> (past)</span>}
                </span>
                {(admin || override.user === session.sub) && (
                  <ConfirmButton
                    label="Delete"
                    name={`Delete the override of ${override.user}, ${when}`}
                    secondary
                    question="Delete this override?"
                    detail={`${override.user} ${when}: the layers decide who is on call then again.`}
                    yes="Yes, delete it"
                    onConfirm={() => remove(override)}
                  />
                )}
              </li>
            );
          })}
        </ul>
      )}
      <form onSubmit={submit} aria-labelledby="take-heading" noValidate>
        <h3 id="take-heading">{admin ? 'Add an override' : 'Take a shift'}</h3>
        <TextField form={form} path="user" label="Who" value={user} readOnly={!admin} error={errors.at('user')} onInput={setUser} />
        <div class="inline-form">
          <TextField form={form} path="start" type="datetime-local" label="From (your time)" value={start} error={errors.at('start')} onInput={setStart} />
          <TextField form={form} path="end" type="datetime-local" label="Until (your time)" value={end} error={errors.at('end')} onInput={setEnd} />
        </div>
        <ErrorMessage error={errors.rest()} />
        <p role="status">{message}</p>
        <button type="submit">{admin && user !== session.sub ? 'Add override' : 'Take this shift'}</button>
      </form>
    </section>
  );
}

/** The two weeks from today as the final schedule has them. */
function TwoWeeks({ session, schedule, revision }: { session: Session; schedule: Schedule; revision: number }) {
  const window = twoWeeks(new Date());
  const shifts = useLoaded(() => readShifts(session.token, schedule.id, window), `${session.token}|${schedule.id}|${revision}`);
  return (
    <section class="card" aria-labelledby="two-weeks-heading">
      <h2 id="two-weeks-heading">Who is on call, the next two weeks</h2>
      <ErrorMessage error={shifts.error} />
      {shifts.data ? <ShiftChart shifts={shifts.data} window={window} now={new Date()} /> : !shifts.error && <p aria-live="polite">Loading…</p>}
    </section>
  );
}

/** A new schedule (oncall.admin), opened once created. */
export function NewSchedule({ session }: { session: Session }) {
  return (
    <main id="main">
      <h1>New schedule</h1>
      {canAdminOnCall(session) ? (
        <ScheduleForm session={session} onSaved={(saved) => navigate(`/oncall/schedules/${encodeURIComponent(saved.id)}`, true)} />
      ) : (
        <p class="error">Creating a schedule needs the oncall.admin role, which your sign-in does not carry.</p>
      )}
    </main>
  );
}

/** One schedule: the picture of its next two weeks, its overrides, and its layers (to edit, for an oncall.admin). */
export function SchedulePage({ session, id }: { session: Session; id: string }) {
  const [revision, setRevision] = useState(0);
  // Read again in place after a change (reload, not a new key): the forms below keep what they say.
  const loaded = useLoaded(() => readSchedule(session.token, id), `${session.token}|${id}`);
  const [error, setError] = useState<unknown>(null);
  const schedule = loaded.data;
  const changed = () => {
    loaded.reload();
    setRevision((n) => n + 1);
  };
  const remove = async () => {
    try {
      await deleteSchedule(session.token, id);
      navigate('/oncall', true);
    } catch (refused) {
      setError(refused);
    }
  };
  if (!schedule) {
    return (
      <main id="main">
        <h1>Schedule</h1>
        <ErrorMessage error={loaded.error} />
        {!loaded.error && <p aria-live="polite">Loading…</p>}
      </main>
    );
  }
  return (
    <main id="main">
      <p class="muted">
        <a href="/oncall">On call</a> › schedule
      </p>
      <h1>{schedule.name}</h1>
      <TwoWeeks session={session} schedule={schedule} revision={revision} />
      <Overrides session={session} schedule={schedule} onChange={changed} />
      {canAdminOnCall(session) ? (
        <>
          <ScheduleForm key={revision} session={session} schedule={schedule} onSaved={changed} />
          <div class="card">
            <ConfirmButton
              label="Delete schedule"
              secondary
              question={`Delete the schedule ${schedule.name}?`}
              detail="Its layers and overrides go with it. A schedule an escalation policy names cannot be deleted."
              yes="Yes, delete it"
              onConfirm={remove}
            />
            <ErrorMessage error={error} />
          </div>
        </>
      ) : (
        <Layers schedule={schedule} />
      )}
    </main>
  );
}
