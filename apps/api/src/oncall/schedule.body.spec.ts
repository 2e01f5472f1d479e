import { TIMESTAMP_RULE } from '@im/cloudevents';
import { InvalidError } from '@im/incidents';
import { parseScheduleBody } from './schedule.body';

describe('parseScheduleBody', () => {
  const layer = { name: 'daily', start: '2026-03-27T09:00:00+01:00', rotation: { every: 1, unit: 'days' }, users: ['ann', 'bob'] };

  it('gives the name, zone and layers, each start in UTC, restrictions only when given', () => {
    const restrictions = [{ days: ['mon', 'fri'], from: '09:00', to: '17:00' }];
    expect(parseScheduleBody({ name: 'Primary', time_zone: 'Europe/Berlin', layers: [layer, { ...layer, restrictions }] })).toEqual({
      name: 'Primary',
      time_zone: 'Europe/Berlin',
      layers: [
        { ...layer, start: '2026-03-27T08:00:00.000Z' },
        { ...layer, start: '2026-03-27T08:00:00.000Z', restrictions },
      ],
    });
  });

  it.each([
    [{ name: 'P', time_zone: 'UTC' }, 'layers is required and must be a list'],
    [{ name: 'P', time_zone: 3, layers: [] }, 'time_zone is required and must be a string'],
    [{ name: 'P', time_zone: 'UTC', layers: [{ ...layer, start: 'tomorrow' }] }, `layers[0].start must be ${TIMESTAMP_RULE}`],
    [{ name: 'P', time_zone: 'UTC', layers: [{ ...layer, rotation: { every: '1' } }] }, 'layers[0].rotation.every is required and must be a number; layers[0].rotation.unit is required and must be a string'],
    [{ name: 'P', time_zone: 'UTC', layers: [{ ...layer, users: 'ann' }] }, 'layers[0].users is required and must be a list'],
    [{ name: 'P', time_zone: 'UTC', layers: [{ ...layer, restrictions: [{ days: [1], from: 9 }] }] }, 'layers[0].restrictions[0].days[0] is required and must be a string; layers[0].restrictions[0].from is required and must be a string; layers[0].restrictions[0].to is required and must be a string'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseScheduleBody(body)).toThrow(new InvalidError(message));
  });
});
