import { type ServerProcess, startServer } from './support/server-process';
import { tempDir } from './support/temp-dir';
import { bearer, token } from './support/tokens';

jest.setTimeout(300_000);

/**
 * The escalation timers across kills (docs/api.md, "Timers are durable and
 * fire once"): the built api, killed with SIGKILL at random moments while
 * incidents escalate (steps of 1 s), and started again each time on the same
 * DATA_DIR. Whatever the moment of each kill, every (incident, round, step) is
 * paged exactly once, every escalation runs to its end, and nothing is paged
 * after an acknowledgement.
 */
const KILLS = 20;
const dir = tempDir('paging-process');
const env = { DATA_DIR: dir.path, LOG_LEVEL: 'warn' };
const HEADERS = { ...bearer(token({ sub: 'alice', roles: ['timeline.writer', 'timeline.reader', 'oncall.admin'] })), 'content-type': 'application/json' };
let api: ServerProcess | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(method: string, path: string, body?: object): Promise<any> {
  const res = await fetch(`${api!.url}${path}`, { method, headers: HEADERS, body: body && JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function declare(service: string): Promise<string> {
  const query = `mutation($input: DeclareIncidentInput!) { declareIncident(input: $input) { id } }`;
  const answer = await call('POST', '/api/v1/graphql', { query, variables: { input: { title: 'Checkout down', severity: 'SEV_1', services: [service] } } });
  return answer.data.declareIncident.id as string;
}

interface Event {
  event_type: string;
  data: { step?: number; round?: number };
}
const timeline = async (id: string) => (await call('GET', `/api/v1/incidents/${id}/timeline?order=asc&limit=500`)).events as Event[];
const pagesOf = (events: Event[]) => events.filter((e) => e.event_type === 'im.paging.page').map((e) => `${e.data.round}/${e.data.step}`);

async function until(probe: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

afterAll(async () => {
  api?.child.kill('SIGKILL');
  await api?.exited;
  dir.remove();
});

it(`pages each (incident, round, step) once across ${KILLS} kills at random moments, and nothing after an acknowledgement`, async () => {
  api = await startServer(env);
  const steps = ['ann', 'bob', 'cy'].map((id) => ({ delay_seconds: 1, targets: [{ type: 'user', id }] }));
  const policy = await call('POST', '/api/v1/escalation-policies', { name: 'Fast', steps, repeat: 1 });
  const service = await call('POST', '/api/v1/services', { name: 'Checkout', escalation_policy_id: policy.id });

  const escalating: string[] = [];
  let acknowledged: string | undefined;
  for (let kill = 0; kill < KILLS; kill++) {
    if (kill % 3 === 0) escalating.push(await declare(service.name));
    if (kill === 10) {
      acknowledged = await declare(service.name);
      await until(async () => pagesOf(await timeline(acknowledged!)).length > 0, 'the first page');
      await call('POST', `/api/v1/incidents/${acknowledged}/ack`);
    }
    await sleep(Math.random() * 2000);
    api.child.kill('SIGKILL');
    await api.exited;
    api = await startServer(env);
  }

  const everyStep = ['1/1', '1/2', '1/3', '2/1', '2/2', '2/3'];
  await until(async () => (await Promise.all(escalating.map(timeline))).every((events) => events.some((e) => e.event_type === 'im.paging.exhausted')), 'every escalation to end');
  for (const id of escalating) {
    const events = await timeline(id);
    expect([id, pagesOf(events)]).toEqual([id, everyStep]);
    expect(events.filter((e) => e.event_type === 'im.paging.exhausted')).toHaveLength(1);
  }
  const afterAck = await timeline(acknowledged!);
  const ack = afterAck.findIndex((e) => e.event_type === 'im.incident.ack');
  expect(pagesOf(afterAck.slice(ack))).toEqual([]);
  expect(new Set(pagesOf(afterAck)).size).toBe(pagesOf(afterAck).length);
});
