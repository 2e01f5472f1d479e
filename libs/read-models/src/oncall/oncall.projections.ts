import type { RecordedEvent } from '@im/event-store';
import {
  type Layer,
  ONCALL_EVENT_TYPES as T,
  ONCALL_STREAM,
  type OverrideData,
  type PolicyData,
  type PolicyStep,
  type ScheduleData,
  type ServiceData,
} from '@im/incidents';
import { documentSchema, type Projection } from '../projection';

/**
 * The on-call configuration's read models, one per kind of piece, folded from
 * the `oncall` stream: what REST, GraphQL and (later) paging read. A deleted
 * piece's document goes; a schedule keeps its overrides, past ones too, until
 * one is deleted.
 */

export interface ServiceRecord {
  id: string;
  name: string;
  description: string | null;
  escalationPolicyId: string | null;
  createdAt: string;
}

export interface EscalationPolicyRecord {
  id: string;
  name: string;
  steps: PolicyStep[];
  repeat: number;
  createdAt: string;
}

export interface OverrideRecord {
  id: string;
  user: string;
  start: string;
  end: string;
  createdAt: string;
}

export interface ScheduleRecord {
  id: string;
  name: string;
  timeZone: string;
  layers: Layer[];
  /** In the order they were created: among overrides covering an instant, the later one wins. */
  overrides: OverrideRecord[];
  createdAt: string;
}

/** Oldest first, ties by id: every list of these read models. */
export const BY_CREATED = documentSchema({
  fields: { createdAt: { type: 'text', path: ['createdAt'] } },
  indexes: [{ name: 'by_created', on: ['createdAt', 'key'] }],
});

/** The document an event of the `oncall` stream changes, among the given types: its `id` (a schedule's, for an override). */
const keyAmong =
  (types: readonly string[]) =>
  ({ streamId, event }: RecordedEvent): string | undefined => {
    if (streamId !== ONCALL_STREAM || !types.includes(event.type)) return undefined;
    const data = event.data as { id: string; schedule_id?: string };
    return event.type === T.overrideCreated || event.type === T.overrideDeleted ? data.schedule_id : data.id;
  };

/** A service or policy: made by its created event, replaced by its updated one (keeping when it was created), gone with its deleted one. */
function configProjection<Data, Doc extends { createdAt: string }>(
  name: string,
  types: { created: string; updated: string; deleted: string },
  toDoc: (data: Data, createdAt: string) => Doc,
): Projection<Doc> {
  return {
    name,
    keyOf: keyAmong([types.created, types.updated, types.deleted]),
    evolve: (doc, { event }) => {
      if (event.type === types.deleted) return undefined;
      if (event.type === types.created) return toDoc(event.data as Data, event.time);
      return doc && toDoc(event.data as Data, doc.createdAt);
    },
    schema: BY_CREATED,
  };
}

export const serviceProjection = configProjection<ServiceData, ServiceRecord>(
  'oncall_services',
  { created: T.serviceCreated, updated: T.serviceUpdated, deleted: T.serviceDeleted },
  (data, createdAt) => ({ id: data.id, name: data.name, description: data.description, escalationPolicyId: data.escalation_policy_id, createdAt }),
);

export const escalationPolicyProjection = configProjection<PolicyData, EscalationPolicyRecord>(
  'escalation_policies',
  { created: T.policyCreated, updated: T.policyUpdated, deleted: T.policyDeleted },
  (data, createdAt) => ({ id: data.id, name: data.name, steps: data.steps, repeat: data.repeat, createdAt }),
);

export const scheduleProjection: Projection<ScheduleRecord> = {
  name: 'schedules',
  keyOf: keyAmong([T.scheduleCreated, T.scheduleUpdated, T.scheduleDeleted, T.overrideCreated, T.overrideDeleted]),
  evolve: (doc, { event }) => {
    switch (event.type) {
      case T.scheduleCreated: {
        const { id, name, time_zone: timeZone, layers } = event.data as unknown as ScheduleData;
        return { id, name, timeZone, layers, overrides: [], createdAt: event.time };
      }
      case T.scheduleUpdated: {
        const { name, time_zone: timeZone, layers } = event.data as unknown as ScheduleData;
        return doc && { ...doc, name, timeZone, layers };
      }
      case T.overrideCreated: {
        const { id, user, start, end } = event.data as unknown as OverrideData;
        return doc && { ...doc, overrides: [...doc.overrides, { id, user, start, end, createdAt: event.time }] };
      }
      case T.overrideDeleted: {
        const { id } = event.data as { id: string };
        return doc && { ...doc, overrides: doc.overrides.filter((o) => o.id !== id) };
      }
      default:
        return undefined;
    }
  },
  schema: BY_CREATED,
};
