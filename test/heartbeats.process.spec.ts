import { type ServerProcess, startProjector, startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';
import { ALL_TIMELINE_ROLES, bearer, token } from './support/tokens';

jest.setTimeout(120_000);

/**
 * A missed heartbeat with the projections in their own process
 * (PROJECTOR=external): the timers run in apps/projector, not in the api, so
 * the projector records the miss through the alert write path (docs/api.md,
 * "Heartbeats"): the built api and projector on one DATA_DIR, a heartbeat of
 * the shortest interval (10 s) pinged once and then left alone.
 */
const HEADERS = { ...bearer(token({ sub: 'ops-admin', roles: [...ALL_TIMELINE_ROLES, 'oncall.admin'] })), 'content-type': 'application/json' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a missed heartbeat with PROJECTOR=external', () => {
  const dir = tempDir('heartbeats-process');
  const env = { DATA_DIR: dir.path };
  let projector: ReturnType<typeof startProjector> | undefined;
  let api: ServerProcess | undefined;

  afterAll(async () => {
    api?.child.kill('SIGTERM');
    projector?.child.kill('SIGTERM');
    await Promise.all([api?.exited, projector?.exited]);
    dir.remove();
  });

  async function call(method: string, path: string, body?: object): Promise<any> {
    const res = await fetch(`${api!.url}${path}`, { method, headers: HEADERS, body: body && JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(200);
    }
  }

  interface TimelineEvent {
    event_type: string;
    actor: string;
    data: Record<string, unknown>;
  }
  const incidentsTitled = async (title: string) => ((await call('GET', '/api/v1/incidents?limit=1000')) as { id: string; title: string }[]).filter((i) => i.title === title);
  const timeline = async (id: string, type: string) => (await call('GET', `/api/v1/incidents/${id}/timeline?type=${type}&order=asc`)).events as TimelineEvent[];

  it('is recorded by the projector: one incident of the heartbeat’s service, one trigger, paged by the service’s policy', async () => {
    projector = startProjector(env);
    await projector.ready;
    api = await startServer({ ...env, PROJECTOR: 'external' });

    const policy = await call('POST', '/api/v1/escalation-policies', { name: 'Watch', steps: [{ delay_seconds: 300, targets: [{ type: 'user', id: 'ann' }] }] });
    const service = await call('POST', '/api/v1/services', { name: 'Checkout', escalation_policy_id: policy.id });
    const heartbeat = await call('POST', '/api/v1/heartbeats', { name: 'Watchdog', interval_seconds: 10, service_id: service.id });
    expect((await call('POST', `/api/v1/heartbeats/${heartbeat.id}/ping`)).status).toBe('ok');

    // Ten seconds after the ping the heartbeat is overdue; the projector's timers record the miss within about a second.
    const title = `Heartbeat ${heartbeat.name} missed`;
    const [opened] = await until(() => incidentsTitled(title), (found) => found.length > 0, 'the incident of the miss');
    expect(await call('GET', `/api/v1/incidents/${opened.id}`)).toEqual(
      expect.objectContaining({ severity: 'SEV-2', status: 'open', alerts_firing: 1, service: { id: service.id, name: service.name } }),
    );
    const pages = await until(() => timeline(opened.id, 'im.paging.page'), (events) => events.length > 0, 'the first page');
    expect(pages.map(({ data }) => data.paged)).toEqual([[{ user: 'ann', via: 'user' }]]);

    // Recorded once: the api, whose timers do not run with PROJECTOR=external, adds no second incident or trigger.
    expect(await incidentsTitled(title)).toHaveLength(1);
    expect((await timeline(opened.id, 'im.alert.*')).map(({ event_type, actor }) => [event_type, actor])).toEqual([['im.alert.trigger', 'system:heartbeat']]);
    expect((await call('GET', `/api/v1/heartbeats/${heartbeat.id}`)).status).toBe('overdue');
    expect(projector.output()).not.toContain('No alert write path');
  });
});
