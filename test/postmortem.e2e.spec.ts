import MarkdownIt from 'markdown-it';
import { randomUUID } from 'node:crypto';
import { asBundle, verifyBundle } from '@im/ledger-proof';
import { durationText } from '../apps/api/src/postmortem/duration-text';
import { startTestApp, type TestApp } from './support/app';
import { expectError } from './support/expect-error';
import { bearer, token } from './support/tokens';

jest.setTimeout(60_000);

/**
 * The postmortem draft (docs/api.md, "Postmortem draft"): an incident of a service with an
 * escalation policy, paged twice, acknowledged and resolved, with a note only PII readers see
 * whole and notes that try to forge the draft's sections. Compared with the Markdown export
 * for the same caller: the same events, redacted the same, ending with the same signed head.
 */
const ADMIN = bearer(token({ sub: 'ops-admin', roles: ['oncall.admin'] }));
/** Every timeline role (the relay's too), confidential clearance, every data class. */
const ALICE = bearer(token({ sub: 'alice' }));
const NO_PII = bearer(token({ sub: 'audit', roles: ['timeline.reader', 'timeline.exporter'], clearance: 'internal', data_access: [] }));
const READER = bearer(token({ sub: 'rita', roles: ['timeline.reader'] }));

const SECRET = `secret-${randomUUID()}`;
const FORGERIES = ['\n## Action items\n- [x] done', '# Postmortem: forged'];
const md = new MarkdownIt({ html: true });
const SECTIONS = ['h2 Summary', 'h2 Responders', 'h2 Timeline', 'h2 Contributing factors', 'h2 Action items'];

let t: TestApp;
let incidentId: string;
let serviceName: string;

const graphql = async (query: string) => (await t.http().post('/api/v1/graphql').set(ALICE).send({ query }).expect(200)).body;
const note = (time: string, fields: Record<string, unknown>) =>
  t
    .http()
    .post('/api/v1/timeline/events')
    .set({ ...ALICE, 'content-type': 'application/cloudevents+json' })
    .send(JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://postmortem-test', type: 'im.incident.note', time, subject: `incident/${incidentId}`, ...fields }))
    .expect(201);

interface TimelineEvent {
  id: string;
  event_type: string;
  created_at: string;
}
const eventsOf = async (type: string): Promise<TimelineEvent[]> =>
  (await t.http().get(`/api/v1/incidents/${incidentId}/timeline?type=${type}&order=asc`).set(ALICE).expect(200)).body.events;

async function pagedTimes(count: number): Promise<void> {
  const until = Date.now() + 15_000;
  while ((await eventsOf('im.paging.page')).length < count && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
}

const postmortem = (id: string, as: Record<string, string>) => t.http().get(`/api/v1/incidents/${id}/postmortem`).set(as);
const markdownExport = async (id: string, as: Record<string, string>) => (await t.http().get(`/api/v1/incidents/${id}/timeline/export?format=markdown`).set(as).expect(200)).text;
const draft = async (as: Record<string, string>) => (await postmortem(incidentId, as).expect(200)).text;
const section = (markdown: string, heading: string) => markdown.split(`\n## ${heading}\n\n`)[1].split('\n\n')[0].split('\n');

beforeAll(async () => {
  t = await startTestApp({ CONSOLE_URL: 'https://im.example.com' });
  const policy = { name: 'Postmortem policy', steps: [{ delay_seconds: 3600, targets: [{ type: 'user', id: 'ann' }] }, { delay_seconds: 3600, targets: [{ type: 'user', id: 'bob' }] }] };
  const policyId = (await t.http().post('/api/v1/escalation-policies').set(ADMIN).send(policy).expect(201)).body.id;
  serviceName = (await t.http().post('/api/v1/services').set(ADMIN).send({ name: 'Checkout', escalation_policy_id: policyId }).expect(201)).body.name;
  // Declared through GraphQL, whose declaration takes services: step 1 pages at once, the escalation pages step 2.
  incidentId = (await graphql(`mutation { declareIncident(input: { title: "Checkout is down", severity: SEV_1, services: ["${serviceName}"] }) { id } }`)).data.declareIncident.id;
  await pagedTimes(1);
  await t.http().post(`/api/v1/incidents/${incidentId}/escalate`).set(ALICE).expect(200);
  await graphql(`mutation { assignRole(incidentId: "${incidentId}", role: COMMS, userId: "bob") { id } }`);
  await note('2026-11-22T10:00:01Z', { 'im.actor': 'carol', 'im.data_class': ['pii'], data: { content: `Customer ${SECRET} reported it` } });
  for (const [i, content] of FORGERIES.entries()) await note(`2026-11-22T10:00:0${i + 2}Z`, { 'im.actor': 'alice', data: { content } });
  await t.http().post(`/api/v1/incidents/${incidentId}/ack`).set(ALICE).expect(200);
  await t.http().post(`/api/v1/incidents/${incidentId}/resolve`).set(ALICE).expect(200);
});
afterAll(() => t.close());

describe('GET /api/v1/incidents/{id}/postmortem', () => {
  it('answers Markdown: the title, then the five sections in order, whatever the notes say', async () => {
    const res = await postmortem(incidentId, ALICE).expect(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const tokens = md.parse(res.text, {});
    const headings = tokens.flatMap((token, i) => (token.type === 'heading_open' ? [`${token.tag} ${tokens[i + 1].content}`] : []));
    expect(headings).toEqual(['h1 Postmortem: Checkout is down', ...SECTIONS]);
    expect(tokens.filter((token) => ['html_block', 'fence', 'code_block'].includes(token.type))).toEqual([]);
    expect(section(res.text, 'Contributing factors')).toEqual(['(for the team to fill in)']);
    expect(section(res.text, 'Action items')).toEqual(['(for the team to fill in)']);
  });

  it('sums up with the record times of the declaration, the first acknowledgement and the first resolution, and the times between', async () => {
    const incident = (await t.http().get(`/api/v1/incidents/${incidentId}`).set(ALICE).expect(200)).body;
    const [ack] = await eventsOf('im.incident.ack');
    const [resolve] = await eventsOf('im.incident.resolve');
    const recorded = async (event: TimelineEvent) => (await t.http().get(`/api/v1/timeline/events/${event.id}`).set(ALICE).expect(200)).body.created_at as string;
    const [acknowledgedAt, resolvedAt] = [await recorded(ack), await recorded(resolve)];
    const since = (at: string) => durationText(Date.parse(at) - Date.parse(incident.created_at));
    expect(section(await draft(ALICE), 'Summary')).toEqual([
      `- Incident: ${incidentId}`,
      `- Service: ${serviceName}`,
      '- Severity: SEV-1',
      '- Status: resolved',
      `- Declared: ${incident.created_at}`,
      `- Acknowledged: ${acknowledgedAt}`,
      `- Resolved: ${resolvedAt}`,
      `- Time to acknowledge: ${since(acknowledgedAt)}`,
      `- Time to resolve: ${since(resolvedAt)}`,
    ]);
  });

  it('names each RACI role’s holder, and who each page paged, at which step and round', async () => {
    const markdown = await draft(ALICE);
    expect(section(markdown, 'Responders')).toEqual(['- IC: alice', '- OPS: none', '- COMMS: bob', '- SECURITY: none', '- PRIVACY: none']);
    const paged = markdown.split('\nPaged:\n\n')[1].split('\n\n')[0].split('\n');
    expect(paged).toEqual([expect.stringMatching(/^- \S+Z, step 1, round 1: ann$/), expect.stringMatching(/^- \S+Z, step 2, round 1: bob$/)]);
  });

  it('lists every event the export shows, one line each, oldest first, the forged notes inert', async () => {
    const exported = (await t.http().get(`/api/v1/incidents/${incidentId}/timeline/export`).set(ALICE).expect(200)).body as { type: string; time: string }[];
    const lines = section(await draft(ALICE), 'Timeline');
    expect(lines.map((line) => line.split(' · ').slice(0, 2))).toEqual(exported.map((event) => [`- ${new Date(event.time).toISOString()}`, event.type]));
    expect(lines).toContain('- 2026-11-22T10:00:02.000Z · im.incident.note · alice ·  ## Action items - [x] done');
    expect(lines).toContain('- 2026-11-22T10:00:03.000Z · im.incident.note · alice · # Postmortem: forged');
  });

  it('hides a redacted field exactly as the Markdown export does for the same caller', async () => {
    // The export's section of the note: its actor line and its text (after Source), as a reader sees them (escapes resolved).
    const noteIn = (markdown: string) => {
      const lines = markdown.split('\n## 2026-11-22T10:00:01.000Z - im.incident.note\n\n')[1].split('\n\nData:')[0].split('\n\n');
      return [lines[0], lines.at(-1)!].map((line) => md.renderInline(line));
    };
    // The draft's line of the note: its actor and its summary, as a reader sees them.
    const lineIn = (markdown: string) => {
      const line = section(markdown, 'Timeline').find((l) => l.startsWith('- 2026-11-22T10:00:01.000Z · im.incident.note · '))!;
      return line.split(' · ').slice(2).map((part) => md.renderInline(part));
    };
    const [exportedWhole, draftWhole] = [await markdownExport(incidentId, ALICE), await draft(ALICE)];
    const [exportedRedacted, draftRedacted] = [await markdownExport(incidentId, NO_PII), await draft(NO_PII)];
    expect(noteIn(exportedWhole)).toEqual(['Actor: carol', `Customer ${SECRET} reported it`]);
    expect(noteIn(exportedRedacted)).toEqual(['Actor: [REDACTED]', '[REDACTED]']);
    // The same caller sees the same in both.
    for (const [exported, drafted] of [[exportedWhole, draftWhole], [exportedRedacted, draftRedacted]]) {
      const [actor, text] = noteIn(exported);
      expect(lineIn(drafted)).toEqual([actor.replace('Actor: ', ''), text]);
    }
    for (const markdown of [exportedRedacted, draftRedacted]) expect(markdown).not.toContain(SECRET);
  });

  it('ends with the signed head of the caller’s chain, as the export does, and that head verifies', async () => {
    const ending = (markdown: string) => markdown.split('\n').filter((line) => /^(Ledger head|Verify): /.test(line));
    const withoutSigningTime = (lines: string[]) => lines.map((line) => line.replace(/, signed at \S+$/, ''));
    for (const caller of [ALICE, NO_PII]) {
      const [exported, drafted] = [ending(await markdownExport(incidentId, caller)), ending(await draft(caller))];
      expect(drafted).toHaveLength(2);
      expect(withoutSigningTime(drafted)).toEqual(withoutSigningTime(exported));
      expect((await draft(caller)).endsWith(`${drafted[1]}\n`)).toBe(true);

      const bundle = (await t.http().get(`/api/v1/incidents/${incidentId}/timeline/export?format=ledger`).set(caller).expect(200)).body;
      const keys = (await t.http().get('/api/v1/ledger/keys').expect(200)).body.keys;
      const verdict = verifyBundle(asBundle(bundle), keys);
      expect(verdict).toMatchObject({ intact: true });
      expect(drafted[0]).toMatch(new RegExp(`^Ledger head: chain ${bundle.head.chain}, n ${bundle.head.n}, hash ${bundle.head.hash}, key ${bundle.head.kid}, signed at `));
    }
  });

  it('is 404 for a withheld or unknown incident, exactly as the export answers', async () => {
    const withheld = (await t.http().post('/api/v1/incidents').set(ALICE).send({ title: 'Secret', severity: 'SEV-2', visibility: 'confidential' }).expect(201)).body.id;
    await postmortem(withheld, ALICE).expect(200);
    for (const id of [withheld, 'INC-00000000']) {
      const res = await postmortem(id, NO_PII);
      expectError(res, 404, `Incident ${id} not found`);
      const exported = await t.http().get(`/api/v1/incidents/${id}/timeline/export?format=markdown`).set(NO_PII);
      expect([res.status, res.body]).toEqual([exported.status, exported.body]);
    }
  });

  it('is 403 without timeline.exporter', async () => {
    expectError(await postmortem(incidentId, READER), 403);
  });
});
