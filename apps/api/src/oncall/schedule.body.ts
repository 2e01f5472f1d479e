import type { Layer, Restriction, RotationUnit, ScheduleData, Weekday } from '@im/incidents';
import { jsonObjectBody } from '../http/json-body.parser';
import { BodyFields } from './body-fields';

export type ScheduleInput = Omit<ScheduleData, 'id'>;

function restrictionOf(fields: BodyFields, item: unknown, at: string): Restriction {
  const raw = fields.object(item, at);
  return { days: fields.texts(raw.days, `${at}.days`) as Weekday[], from: fields.text(raw.from, `${at}.from`), to: fields.text(raw.to, `${at}.to`) };
}

function layerOf(fields: BodyFields, item: unknown, at: string): Layer {
  const raw = fields.object(item, at);
  const rotation = fields.object(raw.rotation, `${at}.rotation`);
  return {
    name: fields.text(raw.name, `${at}.name`),
    start: fields.time(raw.start, `${at}.start`),
    rotation: { every: fields.number(rotation.every, `${at}.rotation.every`), unit: fields.text(rotation.unit, `${at}.rotation.unit`) as RotationUnit },
    users: fields.texts(raw.users, `${at}.users`),
    ...(raw.restrictions === undefined ? {} : { restrictions: fields.list(raw.restrictions, `${at}.restrictions`).map((r, j) => restrictionOf(fields, r, `${at}.restrictions[${j}]`)) }),
  };
}

/** POST and PUT /api/v1/schedules: `{name, time_zone, layers: [{name, start, rotation: {every, unit}, users, restrictions?}]}`; times kept in UTC. */
export function parseScheduleBody(body: unknown): ScheduleInput {
  const raw = jsonObjectBody(body);
  const fields = new BodyFields();
  return fields.done({
    name: fields.text(raw.name, 'name'),
    time_zone: fields.text(raw.time_zone, 'time_zone'),
    layers: fields.list(raw.layers, 'layers').map((layer, i) => layerOf(fields, layer, `layers[${i}]`)),
  });
}
