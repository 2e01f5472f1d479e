import type { RecordedEvent } from '@im/event-store';
import {
  ALERT_RESOLVE_TYPE,
  ALERT_TRIGGER_TYPE,
  HEARTBEAT_ACTOR,
  HEARTBEAT_PING_TYPE,
  type HeartbeatData,
  heartbeatFingerprint,
  heartbeatIdOfStream,
  incidentIdOfStream,
  ONCALL_EVENT_TYPES as T,
  ONCALL_STREAM,
} from '@im/incidents';
import type { Projection } from '../projection';
import { BY_CREATED } from './oncall.projections';

export interface HeartbeatRecord {
  id: string;
  name: string;
  intervalSeconds: number;
  serviceId: string;
  createdAt: string;
  /** The record time of its last ping; null before any. */
  lastPingAt: string | null;
  /** The missed deadline whose alert fires now (recorded by system:heartbeat, not yet resolved); null when none fires. */
  firingSince: string | null;
}

const FINGERPRINT_PREFIX = heartbeatFingerprint('');

/**
 * The heartbeat an event changes: its created or deleted event on the
 * `oncall` stream, a ping on its own stream, and the alerts the service
 * recorded for it on an incident (fingerprint `heartbeat:<id>`, actor
 * system:heartbeat: a sender cannot forge that actor).
 */
function heartbeatOf({ streamId, event }: RecordedEvent): string | undefined {
  if (streamId === ONCALL_STREAM) return event.type === T.heartbeatCreated || event.type === T.heartbeatDeleted ? (event.data as { id: string }).id : undefined;
  if (event.type === HEARTBEAT_PING_TYPE) return heartbeatIdOfStream(streamId);
  const alert = event.type === ALERT_TRIGGER_TYPE || event.type === ALERT_RESOLVE_TYPE;
  const fingerprint = event['im.fingerprint'];
  if (!alert || event['im.actor'] !== HEARTBEAT_ACTOR || !fingerprint?.startsWith(FINGERPRINT_PREFIX) || incidentIdOfStream(streamId) === undefined) return undefined;
  return fingerprint.slice(FINGERPRINT_PREFIX.length);
}

/** Heartbeats as configured, with their last ping and the alert of a missed one; a deleted heartbeat's document goes. */
export const heartbeatProjection: Projection<HeartbeatRecord> = {
  name: 'heartbeats',
  keyOf: heartbeatOf,
  evolve: (doc, { event }) => {
    switch (event.type) {
      case T.heartbeatCreated: {
        const { id, name, interval_seconds: intervalSeconds, service_id: serviceId } = event.data as unknown as HeartbeatData;
        return { id, name, intervalSeconds, serviceId, createdAt: event.time, lastPingAt: null, firingSince: null };
      }
      case T.heartbeatDeleted:
        return undefined;
      case HEARTBEAT_PING_TYPE:
        return doc && { ...doc, lastPingAt: event.time };
      case ALERT_TRIGGER_TYPE:
        return doc && { ...doc, firingSince: event.time };
      case ALERT_RESOLVE_TYPE:
        return doc && { ...doc, firingSince: null };
      default:
        return doc;
    }
  },
  schema: BY_CREATED,
};
