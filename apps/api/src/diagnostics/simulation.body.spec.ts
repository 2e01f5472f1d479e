import { MAX_SIMULATED_EVENTS, parseSimulationBody } from './simulation.body';

describe('parseSimulationBody (POST /api/v1/simulate)', () => {
  it('reads the events and dry_run, which defaults to true', () => {
    expect(parseSimulationBody({ events: [{ id: 'a' }] })).toEqual({ events: [{ id: 'a' }], dryRun: true });
    expect(parseSimulationBody({ events: [], dry_run: false })).toEqual({ events: [], dryRun: false });
  });

  it.each([
    [null, 'Request body must be a JSON object'],
    [[{ id: 'a' }], 'Request body must be a JSON object'],
    [{}, 'events must be an array of CloudEvents'],
    [{ events: { id: 'a' } }, 'events must be an array of CloudEvents'],
    [{ events: new Array(MAX_SIMULATED_EVENTS + 1).fill({}) }, `at most ${MAX_SIMULATED_EVENTS} events per simulation`],
    [{ events: [], dry_run: 'yes' }, 'dry_run must be true or false'],
  ])('refuses %j', (body, message) => {
    expect(() => parseSimulationBody(body)).toThrow(expect.objectContaining({ kind: 'invalid', message }));
  });
});
