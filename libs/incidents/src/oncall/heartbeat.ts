import type { Decider, StreamEvent } from '../decider';
import { ForbiddenError } from '../domain-errors';
import { HEARTBEAT_PING_TYPE, heartbeatStreamId } from '../stream-names';

/**
 * Heartbeats (docs/decisions.md, "Heartbeats"): a heartbeat is overdue once
 * `interval_seconds` have passed without a ping since the last ping, or since
 * it was created. Its configuration is on the `oncall` stream; its pings are
 * on its own stream, `heartbeat-<id>`.
 */

/** Who records a heartbeat's alerts: the service itself. */
export const HEARTBEAT_ACTOR = 'system:heartbeat';

export const HEARTBEAT_STATUSES = ['waiting', 'ok', 'overdue'] as const;
export type HeartbeatStatus = (typeof HEARTBEAT_STATUSES)[number];

/** What the overdue computation reads of a heartbeat (the read model's record fits). */
export interface HeartbeatTimes {
  /** RFC 3339: when it was created. */
  createdAt: string;
  /** RFC 3339: its last ping, null before any. */
  lastPingAt: string | null;
  intervalSeconds: number;
}

/** The instant (ms) it falls overdue unless pinged before: the interval after its last ping, or after its creation. */
export const heartbeatDeadline = ({ createdAt, lastPingAt, intervalSeconds }: HeartbeatTimes): number =>
  Date.parse(lastPingAt ?? createdAt) + intervalSeconds * 1000;

/** `overdue` from its deadline on (a whole interval without a ping); else `waiting` before any ping, `ok` after one. */
export function heartbeatStatus(heartbeat: HeartbeatTimes, now: number): HeartbeatStatus {
  if (now >= heartbeatDeadline(heartbeat)) return 'overdue';
  return heartbeat.lastPingAt === null ? 'waiting' : 'ok';
}

/**
 * The status at instant `at` from the ledger's facts: its creation and its
 * pings' record times (any order). Pings after `at` are not yet known at `at`.
 */
export function heartbeatStatusAt(createdAt: string, intervalSeconds: number, pings: readonly string[], at: number): HeartbeatStatus {
  const known = pings.map((ping) => Date.parse(ping)).filter((ping) => ping <= at);
  const lastPingAt = known.length ? new Date(Math.max(...known)).toISOString() : null;
  return heartbeatStatus({ createdAt, lastPingAt, intervalSeconds }, at);
}

/** The alert a missed heartbeat raises: one fingerprint per heartbeat, so every miss joins its unresolved incident. */
export const heartbeatFingerprint = (heartbeatId: string) => `heartbeat:${heartbeatId}`;

/** Who pings: an integration key (with its service, null for none) or a token (`admin`: it holds oncall.admin). */
export interface PingCaller {
  admin: boolean;
  keyServiceId?: string | null;
}

/** A heartbeat is pinged by an integration key of its own service, or by an `oncall.admin`. */
export function checkMayPing(caller: PingCaller, heartbeat: { id: string; serviceId: string }): void {
  if (caller.admin || (caller.keyServiceId != null && caller.keyServiceId === heartbeat.serviceId)) return;
  throw new ForbiddenError(`Heartbeat ${heartbeat.id} is pinged only with an integration key of its service (${heartbeat.serviceId}) or with the oncall.admin role`);
}

export type HeartbeatPingCommand = { kind: 'ping' };

/**
 * The stream of one heartbeat's pings. A ping is always recorded (its record
 * time is the fact); nothing is decided on earlier pings, so the fold keeps
 * nothing.
 */
export const heartbeatPingDecider: Decider<HeartbeatPingCommand, null, StreamEvent> = {
  stream: { subject: 'heartbeat', streamId: heartbeatStreamId },
  initialState: null,
  decide: () => [{ type: HEARTBEAT_PING_TYPE, data: {} }],
  evolve: (state) => state,
};
