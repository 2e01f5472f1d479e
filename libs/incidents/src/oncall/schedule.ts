import { DateTime } from 'luxon';

/**
 * Who is on call: a schedule's layers, restrictions and overrides as pure
 * date arithmetic (docs/decisions.md, "Schedules"). Calendar steps (days,
 * weeks, a restriction's local times) go through luxon in the schedule's
 * zone, so a daily hand-off keeps its wall-clock time across a
 * daylight-saving change; hours are absolute.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export type RotationUnit = 'hours' | 'days' | 'weeks';

export interface Rotation {
  every: number;
  unit: RotationUnit;
}

/** Local times of the listed days; `to` at or before `from` runs into the next day (the day named is the one it starts). */
export interface Restriction {
  days: readonly Weekday[];
  /** HH:MM, local. */
  from: string;
  /** HH:MM, local. */
  to: string;
}

export interface Layer {
  name: string;
  /** RFC 3339 instant of the first hand-off. */
  start: string;
  rotation: Rotation;
  users: readonly string[];
  restrictions?: readonly Restriction[];
}

/** A stretch handed to one user; among overrides covering an instant, the later in the list (created later) wins. */
export interface Override {
  user: string;
  start: string;
  end: string;
}

export interface ScheduleRules {
  timeZone: string;
  layers: readonly Layer[];
  overrides: readonly Override[];
}

/** One uninterrupted stretch of one user, [start, end) in epoch milliseconds. */
export interface Shift {
  user: string;
  start: number;
  end: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

interface CompiledLayer {
  start: number;
  users: readonly string[];
  /** The instant of hand-off n (n ≥ 0), hand-off 0 being `start`. */
  handoff(n: number): number;
  /** A rough length of one rotation, to guess n before correcting it against `handoff`. */
  approximateLength: number;
  restrictions: readonly { days: ReadonlySet<number>; from: number; to: number }[];
}

/** A schedule ready for many questions: instants parsed and zones resolved once. */
export interface CompiledSchedule {
  zone: string;
  layers: readonly CompiledLayer[];
  overrides: readonly Shift[];
}

export function compileSchedule(rules: ScheduleRules): CompiledSchedule {
  const zone = rules.timeZone;
  return {
    zone,
    layers: rules.layers.map((layer) => compileLayer(layer, zone)),
    overrides: rules.overrides.map((o) => ({ user: o.user, start: Date.parse(o.start), end: Date.parse(o.end) })),
  };
}

function compileLayer(layer: Layer, zone: string): CompiledLayer {
  const start = Date.parse(layer.start);
  const { every, unit } = layer.rotation;
  const restrictions = (layer.restrictions ?? []).map((r) => ({
    days: new Set(r.days.map((day) => WEEKDAYS.indexOf(day) + 1)),
    from: minutesOf(r.from),
    to: minutesOf(r.to),
  }));
  if (unit === 'hours') {
    return { start, users: layer.users, restrictions, approximateLength: every * HOUR_MS, handoff: (n) => start + n * every * HOUR_MS };
  }
  const days = unit === 'weeks' ? every * 7 : every;
  const local = DateTime.fromMillis(start, { zone });
  return { start, users: layer.users, restrictions, approximateLength: days * DAY_MS, handoff: (n) => local.plus({ days: n * days }).toMillis() };
}

/** The number of whole rotations from the layer's start to `t` (t ≥ start). */
function rotationsAt(layer: CompiledLayer, t: number): number {
  let n = Math.max(0, Math.floor((t - layer.start) / layer.approximateLength));
  // The guess is off by at most one rotation: an offset change is shorter than any calendar day.
  while (n > 0 && layer.handoff(n) > t) n -= 1;
  while (layer.handoff(n + 1) <= t) n += 1;
  return n;
}

/** The restriction windows of one local calendar day, as instants (a window past midnight ends the next day). */
function windowsOfDay(layer: CompiledLayer, day: DateTime): { start: number; end: number }[] {
  const windows: { start: number; end: number }[] = [];
  for (const r of layer.restrictions) {
    if (!r.days.has(day.weekday)) continue;
    const at = (date: DateTime, minutes: number) =>
      DateTime.fromObject({ year: date.year, month: date.month, day: date.day, hour: Math.floor(minutes / 60), minute: minutes % 60 }, { zone: day.zone }).toMillis();
    const start = at(day, r.from);
    const end = at(r.to > r.from ? day : day.plus({ days: 1 }), r.to);
    if (end > start) windows.push({ start, end });
  }
  return windows;
}

function allowedAt(layer: CompiledLayer, zone: string, t: number): boolean {
  if (layer.restrictions.length === 0) return true;
  const today = DateTime.fromMillis(t, { zone }).startOf('day');
  // A window that started yesterday may still run.
  return [today.minus({ days: 1 }), today].some((day) => windowsOfDay(layer, day).some((w) => w.start <= t && t < w.end));
}

function layerUserAt(layer: CompiledLayer, zone: string, t: number): string | null {
  if (t < layer.start || layer.users.length === 0 || !allowedAt(layer, zone, t)) return null;
  return layer.users[rotationsAt(layer, t) % layer.users.length];
}

/** Who is on call at `t` (epoch ms): the latest covering override, else the last layer with someone, else no one. */
export function onCallAt(schedule: CompiledSchedule, t: number): string | null {
  for (let i = schedule.overrides.length - 1; i >= 0; i -= 1) {
    const o = schedule.overrides[i];
    if (o.start <= t && t < o.end) return o.user;
  }
  for (let i = schedule.layers.length - 1; i >= 0; i -= 1) {
    const user = layerUserAt(schedule.layers[i], schedule.zone, t);
    if (user !== null) return user;
  }
  return null;
}

/** A layer's own stretches within [from, to), sorted and disjoint: rotation pieces cut to its restriction windows. */
function layerShifts(layer: CompiledLayer, zone: string, from: number, to: number): Shift[] {
  const begin = Math.max(from, layer.start);
  if (begin >= to || layer.users.length === 0) return [];
  const pieces: Shift[] = [];
  for (let n = rotationsAt(layer, begin); ; n += 1) {
    const start = Math.max(layer.handoff(n), begin);
    if (start >= to) break;
    pieces.push({ user: layer.users[n % layer.users.length], start, end: Math.min(layer.handoff(n + 1), to) });
  }
  if (layer.restrictions.length === 0) return pieces;
  const windows = unionOf(restrictionWindows(layer, zone, begin, to));
  const cut: Shift[] = [];
  let w = 0;
  for (const piece of pieces) {
    while (w < windows.length && windows[w].end <= piece.start) w += 1;
    for (let i = w; i < windows.length && windows[i].start < piece.end; i += 1) {
      const start = Math.max(piece.start, windows[i].start);
      const end = Math.min(piece.end, windows[i].end);
      if (start < end) cut.push({ user: piece.user, start, end });
    }
  }
  return cut;
}

function restrictionWindows(layer: CompiledLayer, zone: string, from: number, to: number): { start: number; end: number }[] {
  const windows: { start: number; end: number }[] = [];
  const last = DateTime.fromMillis(to, { zone }).startOf('day');
  for (let day = DateTime.fromMillis(from, { zone }).startOf('day').minus({ days: 1 }); day <= last; day = day.plus({ days: 1 })) {
    windows.push(...windowsOfDay(layer, day));
  }
  return windows;
}

/** Overlapping or touching windows joined, in time order. */
function unionOf(windows: { start: number; end: number }[]): { start: number; end: number }[] {
  const sorted = [...windows].sort((a, b) => a.start - b.start);
  const joined: { start: number; end: number }[] = [];
  for (const w of sorted) {
    const lastJoined = joined[joined.length - 1];
    if (lastJoined && w.start <= lastJoined.end) lastJoined.end = Math.max(lastJoined.end, w.end);
    else joined.push({ ...w });
  }
  return joined;
}

/**
 * The final schedule over [from, to): one shift per uninterrupted stretch of
 * one user, in time order, cut to the window. Computed by a sweep over every
 * instant where an answer may change, independently of `onCallAt`; the
 * property tests hold the two to agreeing.
 */
export function shiftsBetween(schedule: CompiledSchedule, from: number, to: number): Shift[] {
  if (from >= to) return [];
  const perLayer = schedule.layers.map((layer) => layerShifts(layer, schedule.zone, from, to));
  const overrides = schedule.overrides
    .map((o, rank) => ({ ...o, rank, start: Math.max(o.start, from), end: Math.min(o.end, to) }))
    .filter((o) => o.start < o.end);
  const bounds = new Set<number>([from]);
  for (const shifts of [...perLayer, overrides]) for (const s of shifts) bounds.add(s.start).add(s.end);
  const instants = [...bounds].filter((b) => b < to).sort((a, b) => a - b);
  const cursor = perLayer.map(() => 0);
  const shifts: Shift[] = [];
  for (const [i, at] of instants.entries()) {
    const end = i + 1 < instants.length ? instants[i + 1] : to;
    let user: string | null = null;
    let rank = -1;
    for (const o of overrides) if (o.start <= at && at < o.end && o.rank > rank) [user, rank] = [o.user, o.rank];
    for (let l = perLayer.length - 1; user === null && l >= 0; l -= 1) {
      const own = perLayer[l];
      while (cursor[l] < own.length && own[cursor[l]].end <= at) cursor[l] += 1;
      const piece = own[cursor[l]];
      if (piece && piece.start <= at) user = piece.user;
    }
    if (user === null) continue;
    const previous = shifts[shifts.length - 1];
    if (previous && previous.user === user && previous.end === at) previous.end = end;
    else shifts.push({ user, start: at, end });
  }
  return shifts;
}
