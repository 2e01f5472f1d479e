/**
 * A client as a user would write it: openapi-fetch over the types
 * openapi-typescript generates from the live document (`generated-openapi` is
 * mapped to them when openapi-document.e2e.spec.ts compiles this file with
 * `tsc --strict`; the project's own tsc skips this folder). Every operation of
 * the document must appear below, or the file does not compile; each sends a
 * typed body and reads its typed answer.
 */
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { components, paths } from 'generated-openapi';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
/** What a call got: the HTTP responses, and the typed values it read from the body. */
export interface Answer {
  responses: Response[];
  read?: unknown;
}

/** One call per path and method the document declares. */
export type EveryOperation = { [P in keyof paths]: { [M in Method as undefined extends paths[P][M] ? never : M]: () => Promise<Answer> } };

type CloudEvent = components['schemas']['CloudEvent'];
type Incident = components['schemas']['Incident'];
type ErrorBody = components['schemas']['ErrorBody'];

/** The first bytes of a server-sent event stream (it never ends by itself), then the stream is let go. */
async function firstChunk(body: ReadableStream<Uint8Array> | null | undefined): Promise<string | undefined> {
  if (!body) return undefined;
  const reader = body.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return value && new TextDecoder().decode(value);
}

export function typedClient(baseUrl: string, token: string): EveryOperation {
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });
  let incidentId = 'INC-00000000';
  let eventId: string = randomUUID();
  let integrationKeyId = '0000000000000000';
  let webhookId = '0000000000000000';
  let deliveryId = 'none';
  let scheduleId = 'none';
  let overrideId = 'none';
  let policyId = 'none';
  let serviceId = 'none';
  let heartbeatId = 'none';
  const schedule = () => ({ path: { id: scheduleId } });
  const scheduleBody = {
    name: 'Typed client',
    time_zone: 'Europe/Berlin',
    layers: [{ name: 'daily', start: '2026-03-27T09:00:00+01:00', rotation: { every: 1, unit: 'days' as const }, users: ['ann', 'bob'], restrictions: [{ days: ['mon' as const], from: '09:00', to: '17:00' }] }],
  };
  const policyBody = { name: 'Typed client', steps: [{ delay_seconds: 300, targets: [{ type: 'user' as const, id: 'ann' }] }] };
  const path = () => ({ path: { id: incidentId } });
  const freshIncident = async () => (await api.POST('/api/v1/incidents', { body: { title: 'Typed client', severity: 'SEV-4' } })).data?.id ?? 'INC-00000000';
  const noticeErrors = (error: ErrorBody | undefined): string | undefined => error && `${error.status} ${error.error}`;

  return {
    '/health': {
      get: async () => {
        const { data, response } = await api.GET('/health');
        const status: string | undefined = data?.status;
        return { responses: [response], read: status };
      },
    },
    '/api/v1/incidents': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/incidents', { body: { title: 'Checkout is down', severity: 'SEV-2', description: 'Typed client' } });
        const created: Incident | undefined = data;
        if (created) incidentId = created.id;
        const location: string | null = response.headers.get('location');
        return { responses: [response], read: location };
      },
      get: async () => {
        const { data, error, response } = await api.GET('/api/v1/incidents', { params: { query: { status: 'open,acknowledged', severity: 'SEV-2,SEV-4', limit: 1 } } });
        const titles: string[] | undefined = data?.map((incident) => incident.title);
        const next: string | null = response.headers.get('link');
        return { responses: [response], read: [titles, next, noticeErrors(error)] };
      },
    },
    '/api/v1/incidents/{id}': {
      get: async () => {
        const { data, error, response } = await api.GET('/api/v1/incidents/{id}', { params: path() });
        const severity: string | undefined = data?.severity;
        return { responses: [response], read: [severity, noticeErrors(error)] };
      },
    },
    '/api/v1/timeline/events': {
      post: async () => {
        const note: CloudEvent = {
          specversion: '1.0',
          id: randomUUID(),
          source: 'im://typed-client',
          type: 'im.incident.note',
          time: new Date().toISOString(),
          subject: `incident/${incidentId}`,
          data: { title: 'Rolled back', content: 'Deploy 42 reverted' },
          'im.actor': 'typed-client',
          'im.origin_id': randomUUID(),
          'im.data_class': ['pii'],
          'im.visibility': 'internal',
        };
        const { data, response } = await api.POST('/api/v1/timeline/events', { body: note, headers: { 'content-type': 'application/cloudevents+json' } });
        if (data && 'event_id' in data) eventId = data.event_id;
        const created: boolean | undefined = data && 'created' in data ? data.created : undefined;
        // A batch: the same note again (a duplicate) and one refused, answered 200 with one result each.
        const batch = await api.POST('/api/v1/timeline/events', {
          body: [{ ...note, id: randomUUID() }, { ...note, id: '' }],
          headers: { 'content-type': 'application/cloudevents-batch+json' },
        });
        const statuses: number[] | undefined = batch.data && 'results' in batch.data ? batch.data.results.map((result) => result.status) : undefined;
        return { responses: [response, batch.response], read: [created, statuses] };
      },
    },
    '/api/v1/timeline/events/{eventId}': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/timeline/events/{eventId}', { params: { path: { eventId } } });
        const read: [unknown, string[], string] | undefined = data && [data.data.content, data.redacted, data.created_at];
        return { responses: [response], read };
      },
    },
    '/api/v1/incidents/{id}/timeline': {
      get: async () => {
        const query = { type: 'im.incident.*', from: '2020-01-01T00:00:00Z', actor: 'typed-client', limit: 2, order: 'asc' } as const;
        const { data, response } = await api.GET('/api/v1/incidents/{id}/timeline', { params: { ...path(), query } });
        const redacted: string[][] | undefined = data?.events.map((event) => event.redacted);
        const next: string | null | undefined = data?.next_cursor;
        return { responses: [response], read: [redacted, next] };
      },
    },
    '/api/v1/timeline/query': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/timeline/query', { body: { incident_id: incidentId, from_time: '2020-01-01T00:00:00Z', limit: 5, order: 'desc' } });
        const titles: string[] | undefined = data?.events.map((event) => event.title);
        return { responses: [response], read: titles };
      },
    },
    '/api/v1/incidents/{id}/timeline/export': {
      get: async () => {
        const json = await api.GET('/api/v1/incidents/{id}/timeline/export', { params: { ...path(), query: { format: 'json' } } });
        const exported: unknown[] | undefined = Array.isArray(json.data) ? json.data.map((event: CloudEvent) => event.data?.title) : undefined;
        const markdown = await api.GET('/api/v1/incidents/{id}/timeline/export', { params: { ...path(), query: { format: 'markdown' } }, parseAs: 'text' });
        const text: string | undefined = markdown.data;
        const bundle = await api.GET('/api/v1/incidents/{id}/timeline/export', { params: { ...path(), query: { format: 'ledger' } } });
        const head: string | null | undefined = typeof bundle.data === 'object' && !Array.isArray(bundle.data) ? bundle.data.head.hash : undefined;
        return { responses: [json.response, markdown.response, bundle.response], read: [exported, text, head] };
      },
    },
    '/api/v1/incidents/{id}/timeline/verify': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/incidents/{id}/timeline/verify', { params: path() });
        const intact: boolean | undefined = data?.intact;
        return { responses: [response], read: [intact, data?.chain, data?.broken_at?.reason] };
      },
    },
    '/api/v1/incidents/{id}/postmortem': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/incidents/{id}/postmortem', { params: path(), parseAs: 'text' });
        const draft: string | undefined = data;
        return { responses: [response], read: draft?.split('\n')[0] };
      },
    },
    '/api/v1/ledger/keys': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/ledger/keys');
        const kids: string[] | undefined = data?.keys.map((key) => `${key.kid} ${key.status ?? ''}`);
        return { responses: [response], read: kids };
      },
    },
    '/api/v1/incidents/{id}/timeline/stream': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/incidents/{id}/timeline/stream', { params: { ...path(), query: {} }, parseAs: 'stream' });
        return { responses: [response], read: await firstChunk(data) };
      },
    },
    '/api/v1/incidents/stream': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/incidents/stream', { params: { query: {} }, parseAs: 'stream' });
        return { responses: [response], read: await firstChunk(data) };
      },
    },
    '/api/v1/incidents/{id}/ack': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/incidents/{id}/ack', { params: path() });
        const status: string | undefined = data?.status;
        return { responses: [response], read: status };
      },
    },
    '/api/v1/incidents/{id}/mitigate': {
      post: async () => ({ responses: [(await api.POST('/api/v1/incidents/{id}/mitigate', { params: path() })).response] }),
    },
    '/api/v1/incidents/{id}/resolve': {
      post: async () => ({ responses: [(await api.POST('/api/v1/incidents/{id}/resolve', { params: path() })).response] }),
    },
    '/api/v1/incidents/{id}/close': {
      post: async () => ({ responses: [(await api.POST('/api/v1/incidents/{id}/close', { params: path() })).response] }),
    },
    // Each on an incident of its own, open: the one above is closed by now (it may still be the one duplicated).
    '/api/v1/incidents/{id}/cancel': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/incidents/{id}/cancel', { params: { path: { id: await freshIncident() } } });
        const status: string | undefined = data?.status;
        return { responses: [response], read: status };
      },
    },
    // An incident of a service with a policy of its own, declared through the timeline (its `services` name the service): step 2 is paged.
    '/api/v1/incidents/{id}/escalate': {
      post: async () => {
        const steps = [...policyBody.steps, ...policyBody.steps];
        const policy = (await api.POST('/api/v1/escalation-policies', { body: { ...policyBody, name: 'Typed client escalation', steps } })).data?.id ?? null;
        const service = (await api.POST('/api/v1/services', { body: { name: 'Typed client escalation', escalation_policy_id: policy } })).data?.name ?? 'none';
        const declare: CloudEvent = { specversion: '1.0', id: randomUUID(), source: 'im://typed-client', type: 'im.incident.declare', time: new Date().toISOString(), data: { title: 'Escalated', severity: 'SEV-2', services: [service] } };
        const opened = (await api.POST('/api/v1/timeline/events', { body: declare, headers: { 'content-type': 'application/cloudevents+json' } })).data;
        const id = opened && 'incident_id' in opened ? String(opened.incident_id) : 'INC-00000000';
        const { data, error, response } = await api.POST('/api/v1/incidents/{id}/escalate', { params: { path: { id } } });
        const name: string | null | undefined = data?.service?.name;
        return { responses: [response], read: [name, noticeErrors(error)] };
      },
    },
    '/api/v1/incidents/{id}/duplicate': {
      post: async () => {
        const { data, error, response } = await api.POST('/api/v1/incidents/{id}/duplicate', { params: { path: { id: await freshIncident() } }, body: { of: incidentId } });
        const duplicateOf: string | undefined = data?.duplicate_of;
        return { responses: [response], read: [duplicateOf, noticeErrors(error)] };
      },
    },
    '/api/v1/integrations/alertmanager': {
      post: async () => {
        const startsAt = new Date().toISOString();
        const labels = { alertname: 'TypedClient', severity: 'warning', job: 'typed-client' };
        const body = {
          version: '4' as const,
          receiver: 'typed-client',
          status: 'firing' as const,
          alerts: [{ status: 'firing' as const, labels, annotations: {}, startsAt, endsAt: '0001-01-01T00:00:00Z', generatorURL: '', fingerprint: randomUUID() }],
          groupLabels: {},
          commonLabels: labels,
          commonAnnotations: {},
          externalURL: 'http://alertmanager.example',
          groupKey: '{}:{}',
          truncatedAlerts: 0,
        };
        const { data, response } = await api.POST('/api/v1/integrations/alertmanager', { body });
        const statuses: number[] | undefined = data?.results.map((result) => result.status);
        return { responses: [response], read: statuses };
      },
    },
    '/api/v1/integrations/grafana': {
      post: async () => {
        const alert = { status: 'resolved' as const, labels: { alertname: 'TypedClient' }, annotations: {}, startsAt: '2024-06-04T09:51:03.157076+02:00', endsAt: '2024-06-04T10:06:03.157076+02:00', generatorURL: '', fingerprint: randomUUID(), values: null };
        const body = { version: '1' as const, receiver: 'typed-client', status: 'resolved' as const, orgId: 1, alerts: [alert], state: 'ok' };
        const { data, response } = await api.POST('/api/v1/integrations/grafana', { body });
        const ignored: (boolean | undefined)[] | undefined = data?.results.map((result) => result.ignored);
        return { responses: [response], read: ignored };
      },
    },
    '/api/v1/validate': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/validate', { params: { query: { self_test: 'false' } } });
        const failed: string[] | undefined = data?.results.filter((result) => result.status === 'fail').map((result) => `${result.component}.${result.check}`);
        const summary: number | undefined = data?.summary.failed;
        return { responses: [response], read: [failed, summary, data?.capabilities.graphql] };
      },
    },
    '/api/v1/leases': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/leases');
        const holders: ('api' | 'projector' | undefined)[] | undefined = data?.leases.map((lease) => lease.holder?.kind);
        const generations: number[] | undefined = data?.leases.map((lease) => lease.generation);
        return { responses: [response], read: [holders, generations] };
      },
    },
    '/api/v1/analytics/incidents': {
      get: async () => {
        const query = { from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 86_400_000).toISOString(), group_by: 'severity' as const };
        const { data, response } = await api.GET('/api/v1/analytics/incidents', { params: { query } });
        // Typed as JSON or CSV by the document; JSON unless Accept asks for CSV.
        const groups = typeof data === 'object' ? data.groups : [];
        const keys: (string | null)[] = groups.map((group) => group.key);
        const p50s: (number | null)[] = groups.map((group) => group.time_to_acknowledge.p50);
        const csv = await api.GET('/api/v1/analytics/incidents', { params: { query, header: { accept: 'text/csv' } }, parseAs: 'text' });
        return { responses: [response, csv.response], read: [keys, p50s, csv.data?.split('\r\n')[0]] };
      },
    },
    '/api/v1/simulate': {
      post: async () => {
        const events = [{ specversion: '1.0', id: randomUUID(), source: 'im://typed-client', type: 'incident.trigger', time: new Date().toISOString(), data: { title: 'Simulated', severity: 'SEV-3' } }];
        const { data, response } = await api.POST('/api/v1/simulate', { body: { events, dry_run: true } });
        const outcome: ('incident' | 'timeline_event' | 'nothing')[] | undefined = data?.events_created.map((event) => event.would_create);
        const errors: number[] | undefined = data?.errors.map((error) => error.index);
        return { responses: [response], read: [outcome, errors] };
      },
    },
    '/api/v1/schema': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/schema', { params: { query: { type: 'event', format: 'jsonschema' } } });
        const title: unknown = data?.title;
        return { responses: [response], read: title };
      },
    },
    '/api/v1/openapi.json': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/openapi.json');
        const version: unknown = data?.openapi;
        return { responses: [response], read: version };
      },
    },
    '/api/v1/integration-keys': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/integration-keys', { body: { name: 'typed-client', roles: ['timeline.writer'] } });
        if (data) integrationKeyId = data.id;
        const secret: string | undefined = data?.key;
        return { responses: [response], read: secret?.startsWith('imk_') };
      },
      get: async () => {
        const { data, response } = await api.GET('/api/v1/integration-keys');
        const revoked: (string | null | undefined)[] | undefined = data?.map((key) => key.revoked_at);
        return { responses: [response], read: revoked };
      },
    },
    '/api/v1/integration-keys/{id}': {
      delete: async () => ({ responses: [(await api.DELETE('/api/v1/integration-keys/{id}', { params: { path: { id: integrationKeyId } } })).response] }),
    },
    '/api/v1/integration-keys/events': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/integration-keys/events');
        const types: string[] | undefined = data?.map((event) => event.type);
        return { responses: [response], read: types };
      },
    },
    '/api/v1/webhooks': {
      post: async () => {
        // An address that does not resolve here is accepted, and checked again at each delivery.
        const { data, response } = await api.POST('/api/v1/webhooks', { body: { url: 'https://hooks.example.com/typed-client', event_types: ['im.incident.*'], data_access: ['pii'] } });
        if (data) webhookId = data.id;
        const secret: string | undefined = data?.secret;
        return { responses: [response], read: secret?.startsWith('whsec_') };
      },
      get: async () => {
        const { data, response } = await api.GET('/api/v1/webhooks');
        const enabled: boolean[] | undefined = data?.items.map((hook) => hook.enabled);
        return { responses: [response], read: enabled };
      },
    },
    '/api/v1/webhooks/{id}/deliveries': {
      get: async () => {
        // An incident declared now is delivered (and fails: the host does not resolve here): the log shows the attempt.
        await api.POST('/api/v1/incidents', { body: { title: 'Webhook delivery', severity: 'SEV-3' } });
        for (let tries = 0; ; tries += 1) {
          const { data, error, response } = await api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: webhookId } } });
          const first: string | undefined = data?.items[0]?.id;
          if (first || tries === 50) {
            if (first) deliveryId = first;
            return { responses: [response], read: [data?.items.map((delivery) => delivery.error), noticeErrors(error)] };
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
    },
    '/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry': {
      post: async () => {
        const { error, response } = await api.POST('/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry', { params: { path: { id: webhookId, delivery_id: deliveryId } } });
        return { responses: [response], read: noticeErrors(error) };
      },
    },
    '/api/v1/webhooks/{id}': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/webhooks/{id}', { params: { path: { id: webhookId } } });
        const clearance: string | undefined = data?.clearance;
        return { responses: [response], read: clearance };
      },
      delete: async () => ({ responses: [(await api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id: webhookId } } })).response] }),
    },
    '/api/v1/schedules': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/schedules', { body: scheduleBody });
        if (data) scheduleId = data.id;
        const overrides: number | undefined = data?.overrides.length;
        return { responses: [response], read: overrides };
      },
      get: async () => {
        const { data, response } = await api.GET('/api/v1/schedules');
        const zones: string[] | undefined = data?.items.map((item) => item.time_zone);
        return { responses: [response], read: zones };
      },
    },
    '/api/v1/schedules/{id}/overrides': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/schedules/{id}/overrides', { params: schedule(), body: { user: 'cy', start: '2026-04-01T08:00:00Z', end: '2026-04-01T20:00:00Z' } });
        if (data) overrideId = data.id;
        const createdAt: string | undefined = data?.created_at;
        return { responses: [response], read: createdAt };
      },
    },
    '/api/v1/schedules/{id}/overrides/{override_id}': {
      delete: async () => ({ responses: [(await api.DELETE('/api/v1/schedules/{id}/overrides/{override_id}', { params: { path: { id: scheduleId, override_id: overrideId } } })).response] }),
    },
    '/api/v1/schedules/{id}/oncall': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/schedules/{id}/oncall', { params: { ...schedule(), query: { at: '2026-03-29T07:00:00Z' } } });
        const user: string | null | undefined = data?.user;
        return { responses: [response], read: user };
      },
    },
    '/api/v1/schedules/{id}/shifts': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/schedules/{id}/shifts', { params: { ...schedule(), query: { from: '2026-03-28T00:00:00Z', to: '2026-03-31T00:00:00Z' } } });
        const users: string[] | undefined = data?.shifts.map((shift) => shift.user);
        return { responses: [response], read: users };
      },
    },
    '/api/v1/schedules/{id}': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/schedules/{id}', { params: schedule() });
        const name: string | undefined = data?.name;
        return { responses: [response], read: name };
      },
      put: async () => {
        const { data, response } = await api.PUT('/api/v1/schedules/{id}', { params: schedule(), body: { ...scheduleBody, time_zone: 'UTC' } });
        const zone: string | undefined = data?.time_zone;
        return { responses: [response], read: zone };
      },
      delete: async () => ({ responses: [(await api.DELETE('/api/v1/schedules/{id}', { params: schedule() })).response] }),
    },
    '/api/v1/escalation-policies': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/escalation-policies', { body: policyBody });
        if (data) policyId = data.id;
        const repeat: number | undefined = data?.repeat;
        return { responses: [response], read: repeat };
      },
      get: async () => {
        const { data, response } = await api.GET('/api/v1/escalation-policies');
        const steps: number[] | undefined = data?.items.map((item) => item.steps.length);
        return { responses: [response], read: steps };
      },
    },
    '/api/v1/services': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/services', { body: { name: 'Typed client', escalation_policy_id: policyId } });
        if (data) serviceId = data.id;
        const policy: string | null | undefined = data?.escalation_policy_id;
        return { responses: [response], read: policy };
      },
      get: async () => {
        const { data, response } = await api.GET('/api/v1/services');
        const names: string[] | undefined = data?.items.map((item) => item.name);
        return { responses: [response], read: names };
      },
    },
    '/api/v1/heartbeats': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/heartbeats', { body: { name: 'Typed client', interval_seconds: 300, service_id: serviceId } });
        if (data) heartbeatId = data.id;
        const status: 'waiting' | 'ok' | 'overdue' | undefined = data?.status;
        return { responses: [response], read: status };
      },
      get: async () => {
        const { data, response } = await api.GET('/api/v1/heartbeats');
        const intervals: number[] | undefined = data?.items.map((item) => item.interval_seconds);
        return { responses: [response], read: intervals };
      },
    },
    '/api/v1/heartbeats/{id}/ping': {
      post: async () => {
        const { data, response } = await api.POST('/api/v1/heartbeats/{id}/ping', { params: { path: { id: heartbeatId } }, body: {} });
        const lastPingAt: string | null | undefined = data?.last_ping_at;
        return { responses: [response], read: lastPingAt };
      },
    },
    '/api/v1/heartbeats/{id}': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/heartbeats/{id}', { params: { path: { id: heartbeatId } } });
        const serviceOf: string | undefined = data?.service_id;
        return { responses: [response], read: serviceOf };
      },
      // Before the service's own DELETE: a service a heartbeat names is not deleted.
      delete: async () => ({ responses: [(await api.DELETE('/api/v1/heartbeats/{id}', { params: { path: { id: heartbeatId } } })).response] }),
    },
    '/api/v1/services/{id}': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/services/{id}', { params: { path: { id: serviceId } } });
        const createdAt: string | undefined = data?.created_at;
        return { responses: [response], read: createdAt };
      },
      put: async () => {
        const { data, response } = await api.PUT('/api/v1/services/{id}', { params: { path: { id: serviceId } }, body: { name: 'Typed client', description: 'No policy now' } });
        const description: string | null | undefined = data?.description;
        return { responses: [response], read: description };
      },
      delete: async () => ({ responses: [(await api.DELETE('/api/v1/services/{id}', { params: { path: { id: serviceId } } })).response] }),
    },
    '/api/v1/escalation-policies/{id}': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/escalation-policies/{id}', { params: { path: { id: policyId } } });
        const name: string | undefined = data?.name;
        return { responses: [response], read: name };
      },
      put: async () => {
        const { data, response } = await api.PUT('/api/v1/escalation-policies/{id}', { params: { path: { id: policyId } }, body: { ...policyBody, repeat: 2 } });
        const repeat: number | undefined = data?.repeat;
        return { responses: [response], read: repeat };
      },
      delete: async () => ({ responses: [(await api.DELETE('/api/v1/escalation-policies/{id}', { params: { path: { id: policyId } } })).response] }),
    },
    '/api/v1/console/config': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/console/config');
        const signIn: [boolean, string | undefined] | undefined = data && [data.development_sign_in, data.oidc?.client_id];
        return { responses: [response], read: signIn };
      },
    },
    '/api/v1/console/development-token': {
      post: async () => {
        // As the console does: only where the configuration offers it (development mode).
        if (!(await api.GET('/api/v1/console/config')).data?.development_sign_in) return { responses: [] };
        const { data, error, response } = await api.POST('/api/v1/console/development-token', {
          body: { sub: 'typed-client', roles: ['timeline.reader'], clearance: 'internal', data_access: ['pii'] },
        });
        const expiresAt: string | undefined = data?.expires_at;
        return { responses: [response], read: [expiresAt, noticeErrors(error)] };
      },
    },
    '/api/v1/notifications/vapid-public-key': {
      get: async () => {
        const { data, response } = await api.GET('/api/v1/notifications/vapid-public-key');
        const publicKey: string | undefined = data?.publicKey;
        return { responses: [response], read: publicKey };
      },
    },
    '/api/v1/realtime/stats': { get: async () => ({ responses: [(await api.GET('/api/v1/realtime/stats')).response] }) },
    '/api/v1/correlation/groups': { get: async () => ({ responses: [(await api.GET('/api/v1/correlation/groups')).response] }) },
    '/api/v1/correlation/stats': { get: async () => ({ responses: [(await api.GET('/api/v1/correlation/stats')).response] }) },
    '/api/v1/sla/status/{id}': {
      get: async () => {
        const { error, response } = await api.GET('/api/v1/sla/status/{id}', { params: path() });
        return { responses: [response], read: noticeErrors(error) };
      },
    },
    '/api/v1/sla/metrics': { get: async () => ({ responses: [(await api.GET('/api/v1/sla/metrics')).response] }) },
    '/api/v1/metrics/incidents': { get: async () => ({ responses: [(await api.GET('/api/v1/metrics/incidents')).response] }) },
    '/api/v1/metrics/teams': { get: async () => ({ responses: [(await api.GET('/api/v1/metrics/teams')).response] }) },
    '/api/v1/metrics/services/{service}/reliability': {
      get: async () => ({ responses: [(await api.GET('/api/v1/metrics/services/{service}/reliability', { params: { path: { service: 'checkout' } } })).response] }),
    },
    '/api/v1/connectors': { get: async () => ({ responses: [(await api.GET('/api/v1/connectors')).response] }) },
  };
}
