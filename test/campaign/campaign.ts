import { randomUUID } from 'node:crypto';
import { DEVELOPMENT_JWT_SECRET } from '@im/config';
import { token } from '../support/tokens';

/**
 * The reliability and security campaign runs in `npm test` with small counts;
 * `npm run test:campaign:long` (CAMPAIGN=long) runs the larger ones.
 */
export const LONG = process.env.CAMPAIGN === 'long';

export const counts = {
  kills: LONG ? 20 : 3,
  fuzzRuns: LONG ? 5000 : 300,
  validatorRuns: LONG ? 20_000 : 2000,
};

/** Every timeline role, all clearances: sees everything, so a count of events is a count of what is stored. */
export const AUDITOR = `Bearer ${token({ sub: 'campaign' }, { expiresIn: '2h' }, DEVELOPMENT_JWT_SECRET)}`;

export const CLOUDEVENTS = { 'content-type': 'application/cloudevents+json', authorization: AUDITOR };

export interface SentEvent {
  id: string;
  originId: string;
  body: string;
}

/** A note for an incident, unique by id and origin id. */
export function noteFor(incidentId: string, source = 'im://campaign'): SentEvent {
  const id = randomUUID();
  const originId = `origin-${randomUUID()}`;
  const body = JSON.stringify({
    specversion: '1.0',
    id,
    source,
    type: 'im.incident.note',
    time: new Date().toISOString(),
    subject: `incident/${incidentId}`,
    'im.origin_id': originId,
    data: { content: `campaign note ${id}` },
  });
  return { id, originId, body };
}

/** Declares an incident through REST (open in development) and returns its id. */
export async function createIncident(url: string, title: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/incidents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title, severity: 'SEV-3' }),
  });
  if (res.status !== 201) throw new Error(`declaring answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

export const append = (url: string, event: SentEvent) =>
  fetch(`${url}/api/v1/timeline/events`, { method: 'POST', headers: CLOUDEVENTS, body: event.body });

/** Every event id of an incident's timeline, page by page (limit 1000). */
export async function timelineIds(url: string, incidentId: string): Promise<string[]> {
  const ids: string[] = [];
  let next: string | null = `${url}/api/v1/incidents/${incidentId}/timeline?limit=1000&order=asc`;
  while (next) {
    const res: Response = await fetch(next, { headers: { authorization: AUDITOR } });
    if (res.status !== 200) throw new Error(`timeline read answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { events: { id: string }[]; next_cursor?: string | null };
    ids.push(...page.events.map((e) => e.id));
    next = page.next_cursor ? `${url}/api/v1/incidents/${incidentId}/timeline?limit=1000&order=asc&cursor=${encodeURIComponent(page.next_cursor)}` : null;
  }
  return ids;
}

/** Resolves once /api/v1/validate says the read models have applied the head of the log. */
export async function caughtUp(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const report = (await (await fetch(`${url}/api/v1/validate`)).json()) as { results: { check: string; status: string; message: string }[] };
    const lag = report.results.find((r) => r.check === 'lag');
    if (lag?.status === 'pass') return;
    if (Date.now() > deadline) throw new Error(`read models did not catch up: ${lag?.message}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
