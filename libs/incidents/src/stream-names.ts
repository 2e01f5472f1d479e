import { createHash } from 'node:crypto';

/**
 * The streams the service writes, named here once: the write side appends to
 * them, the read models tell them apart, the adapters follow them.
 */

/** One stream per incident: its timeline, in order. */
export const INCIDENT_STREAM_PREFIX = 'incident-';
/** One stream per responder: their notification preferences. */
export const USER_STREAM_PREFIX = 'user-';
/** One stream per alert fingerprint: which incident its alerts join (the last claim wins). */
export const FINGERPRINT_STREAM_PREFIX = 'fingerprint-';
/** Scratch streams of the diagnostics self-test; no user-facing read model reads them. */
export const DIAGNOSTICS_STREAM_PREFIX = 'diagnostics-';
/** The one stream of integration keys: every key created and revoked, in order. */
export const INTEGRATION_KEYS_STREAM = 'integration-keys';
/** The one stream of webhook registrations: every registration, removal and disabling, in order. */
export const WEBHOOKS_STREAM = 'webhooks';
/** The one stream of on-call configuration: services, escalation policies, schedules and overrides, so rules across them are decided on one fold. */
export const ONCALL_STREAM = 'oncall';
/** One stream per heartbeat: its pings, so whether it was overdue at any instant is answered from the ledger. */
export const HEARTBEAT_STREAM_PREFIX = 'heartbeat-';

/**
 * Every stream the service appends to. A KurrentDB server holds other streams
 * too (system streams, other applications): the ledger reads back only these.
 * Fingerprint claims feed no read model, but they move the head the write path
 * waits for, so the projections must see them pass.
 */
export const SERVICE_STREAM_PREFIXES: readonly string[] = [
  INCIDENT_STREAM_PREFIX,
  USER_STREAM_PREFIX,
  FINGERPRINT_STREAM_PREFIX,
  DIAGNOSTICS_STREAM_PREFIX,
  // A whole stream name is its own prefix; no other stream starts with it.
  INTEGRATION_KEYS_STREAM,
  WEBHOOKS_STREAM,
  ONCALL_STREAM,
  HEARTBEAT_STREAM_PREFIX,
];

/** Event of a user stream: carries the whole, merged preferences. */
export const PREFERENCES_UPDATED_TYPE = 'im.user.preferences_updated';
/** Event of a fingerprint stream: alerts with this fingerprint now join this incident. */
export const FINGERPRINT_BIND_TYPE = 'im.fingerprint.bind';
/** Event of a diagnostics stream: the self-test's probe. */
export const PROBE_EVENT_TYPE = 'im.diagnostics.probe';
/** Event of a heartbeat stream: a ping, at its record time. */
export const HEARTBEAT_PING_TYPE = 'im.heartbeat.ping';

export const incidentStreamId = (incidentId: string) => `${INCIDENT_STREAM_PREFIX}${incidentId}`;
/** The incident a stream holds; undefined for any other stream. */
export const incidentIdOfStream = (streamId: string) =>
  streamId.startsWith(INCIDENT_STREAM_PREFIX) ? streamId.slice(INCIDENT_STREAM_PREFIX.length) : undefined;

export const userStreamId = (userId: string) => `${USER_STREAM_PREFIX}${userId}`;

/** Hashed: a fingerprint is whatever text a sender chose, a stream name is not. */
export const fingerprintStreamId = (fingerprint: string) =>
  `${FINGERPRINT_STREAM_PREFIX}${createHash('sha256').update(fingerprint).digest('hex').slice(0, 32)}`;

export const diagnosticsStreamId = (probeId: string) => `${DIAGNOSTICS_STREAM_PREFIX}${probeId}`;

export const heartbeatStreamId = (heartbeatId: string) => `${HEARTBEAT_STREAM_PREFIX}${heartbeatId}`;
/** The heartbeat a stream holds the pings of; undefined for any other stream. */
export const heartbeatIdOfStream = (streamId: string) =>
  streamId.startsWith(HEARTBEAT_STREAM_PREFIX) ? streamId.slice(HEARTBEAT_STREAM_PREFIX.length) : undefined;
