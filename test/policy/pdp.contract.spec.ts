import { join } from 'node:path';
import { EmbeddedPdp, loadTimelinePolicy, OpaPdp, PolicyUnavailableError } from '@im/policy';
import { describePdpContract } from '../../libs/policy/src/pdp.contract';
import { startFakeOpa } from './fake-opa';

const policy = loadTimelinePolicy(join(__dirname, '../../policy/timeline-policy.json'));

describePdpContract('embedded', async () => ({ pdp: new EmbeddedPdp(policy), close: async () => undefined }));

describePdpContract('opa (local server answering like OPA)', async () => {
  const opa = await startFakeOpa(new EmbeddedPdp(policy));
  return { pdp: new OpaPdp(opa.url, 500), close: opa.close };
});

describe('OPA adapter failures are fail-closed', () => {
  let opa: Awaited<ReturnType<typeof startFakeOpa>>;
  let pdp: OpaPdp;
  const input = {
    subject: { sub: 'u', roles: ['timeline.reader'], clearance: 'internal', data_access: ['pii'] },
    action: 'timeline.read' as const,
    resources: [{ visibility: 'public', data_class: ['pii'] }],
  };
  beforeAll(async () => {
    opa = await startFakeOpa(new EmbeddedPdp(policy));
    pdp = new OpaPdp(opa.url, 200);
  });
  afterAll(() => opa.close());

  it('sends the same input document the embedded PDP receives', async () => {
    opa.setMode('decide');
    await pdp.decide(input);
    expect(opa.inputs[opa.inputs.length - 1]).toEqual(input);
  });

  it('passes a deny through', async () => {
    opa.setMode('deny');
    expect(await pdp.decide(input)).toEqual([{ visible: false, redact: [] }]);
  });

  it.each([
    ['an undefined result', 'undefined', /undefined/],
    ['an answer slower than the timeout', 'slow', /no answer within 200 ms/],
    ['an HTTP 500', 'error', /HTTP 500/],
    ['a malformed decision', 'malformed', /malformed/],
  ] as const)('refuses %s with PolicyUnavailableError', async (_, mode, message) => {
    opa.setMode(mode);
    await expect(pdp.decide(input)).rejects.toThrow(PolicyUnavailableError);
    await expect(pdp.decide(input)).rejects.toThrow(message);
  });

  it('refuses when nothing listens', async () => {
    const down = new OpaPdp('http://127.0.0.1:9', 200);
    await expect(down.decide(input)).rejects.toThrow(PolicyUnavailableError);
    await expect(down.ping()).rejects.toThrow(PolicyUnavailableError);
  });

  it('says why it cannot decide, never where OPA is', async () => {
    const down = new OpaPdp('http://127.0.0.1:9', 200);
    const error = await down.decide(input).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^OPA is unavailable: cannot connect/);
    expect((error as Error).message).not.toContain('127.0.0.1');
    opa.setMode('slow');
    const slow = await pdp.decide(input).catch((e: Error) => e);
    expect((slow as Error).message).toBe('OPA is unavailable: no answer within 200 ms');
    expect((slow as Error).message).not.toContain(opa.url.replace('http://', ''));
  });
});
