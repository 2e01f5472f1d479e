import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { type CloudEvent, withSender } from '@im/cloudevents';
import { ALERT_RESOLVE_TYPE, ALERT_TRIGGER_TYPE, HEARTBEAT_ACTOR, heartbeatDeadline, heartbeatFingerprint } from '@im/incidents';
import { type HeartbeatRecord, ONCALL_QUERIES, type OncallQueries } from '@im/read-models';
import { ID_GENERATOR, type IdGenerator } from '@im/write-path';
import type { DueSource, DueWork } from './due-work';

/** The severity of a missed heartbeat's incident (docs/api.md, "Heartbeats"). */
export const HEARTBEAT_SEVERITY = 'SEV-2';

/**
 * The alert write path (dedup, routing by fingerprint, the service of an
 * opening, the incident decider): TimelineAppendModule (libs/timeline-append,
 * imported by the api and apps/projector) binds it to TimelineAppendHandler,
 * so a missed heartbeat is recorded exactly as an alert is. A token here, not
 * an import: that library imports this one.
 */
export const ALERT_RECORDER = Symbol('ALERT_RECORDER');
export interface AlertRecorder {
  /** Records without waiting for the read models; `idDrawnHere`: the event's id was drawn for it just now. */
  record(event: CloudEvent, options: { idDrawnHere: boolean }): Promise<unknown>;
}

/**
 * A heartbeat's alert as the ledger event it becomes, by system:heartbeat.
 * Its origin id is the missed deadline, so every process and every restart
 * that finds the same miss records it once, and its resolution once.
 */
export function heartbeatAlertEvent(kind: 'trigger' | 'resolve', heartbeat: HeartbeatRecord, deadline: string, id: string, time: string): CloudEvent {
  const fingerprint = heartbeatFingerprint(heartbeat.id);
  const trigger = kind === 'trigger';
  const event: CloudEvent = {
    specversion: '1.0',
    id,
    source: `im://heartbeat/${encodeURIComponent(heartbeat.id)}`,
    type: trigger ? ALERT_TRIGGER_TYPE : ALERT_RESOLVE_TYPE,
    time,
    'im.fingerprint': fingerprint,
    'im.origin_id': `${fingerprint}@${deadline}${trigger ? '' : ':resolved'}`,
    'im.actor': HEARTBEAT_ACTOR,
    // `service` names the heartbeat's service by id: the incident belongs to it and pages by its policy.
    data: trigger
      ? { title: `Heartbeat ${heartbeat.name} missed`, severity: HEARTBEAT_SEVERITY, service: heartbeat.serviceId, heartbeat_id: heartbeat.id, deadline }
      : { heartbeat_id: heartbeat.id, deadline },
  };
  return withSender(event, HEARTBEAT_ACTOR);
}

/** Of the heartbeats, those overdue at `now` whose miss is not yet recorded, each with its missed deadline. */
export function heartbeatsDue(heartbeats: readonly HeartbeatRecord[], now: Date): { heartbeat: HeartbeatRecord; deadline: string }[] {
  return heartbeats.flatMap((heartbeat) => {
    const deadline = heartbeatDeadline(heartbeat);
    const missed = new Date(deadline).toISOString();
    return deadline <= now.getTime() && heartbeat.firingSince !== missed ? [{ heartbeat, deadline: missed }] : [];
  });
}

/**
 * Missed heartbeats as due work: each overdue heartbeat opens (or joins) the
 * incident of its fingerprint through the alert write path, the trigger's
 * time being the deadline it missed. Firing twice is one event: the second
 * is a duplicate of the first by its origin id.
 */
@Injectable()
export class HeartbeatsDue implements DueSource {
  readonly name = 'heartbeats';
  private readonly logger = new Logger('Heartbeats');

  constructor(
    @Inject(ONCALL_QUERIES) private readonly oncall: OncallQueries,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    // Bound wherever the timers run; a process that left TimelineAppendModule out would fire no heartbeat, and says so.
    @Optional() @Inject(ALERT_RECORDER) private readonly alerts?: AlertRecorder,
  ) {
    if (!alerts) this.logger.warn('No alert write path in this process: missed heartbeats are not recorded here');
  }

  async due(now: Date): Promise<DueWork[]> {
    const alerts = this.alerts;
    if (!alerts) return [];
    return heartbeatsDue(await this.oncall.heartbeats.list(), now).map(({ heartbeat, deadline }) => ({
      key: `heartbeat:${heartbeat.id}`,
      fire: async () => {
        await alerts.record(heartbeatAlertEvent('trigger', heartbeat, deadline, this.ids.eventId(), deadline), { idDrawnHere: true });
      },
    }));
  }
}
