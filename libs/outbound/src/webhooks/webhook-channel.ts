import { createHash } from 'node:crypto';
import type { DataClass, Visibility } from '@im/cloudevents';
import type { RecordedEvent } from '@im/event-store';
import { incidentIdOfStream } from '@im/incidents';
import { type ProjectionProgress, recordedTimelineRow, type TimelineRow } from '@im/read-models';
import { type Principal, TIMELINE_ROLES, type TimelineAuthorizer } from '@im/access';
import type { OutboundChannel, OutboundMessage, OutboundTarget, SendOutcome } from '../outbound-channel';
import { ReaderViews } from './reader-views';
import type { WebhookEndpoint, WebhookSender } from './webhook-sender';

export const WEBHOOK_CHANNEL = 'webhook';
/** The secret did not open (WEBHOOK_SECRET_KEY changed?): nothing unsigned is ever sent. */
export const SECRET_UNAVAILABLE = 'secret_unavailable';

export interface WebhookTarget extends OutboundTarget {
  eventTypes: string[];
  /** Who the registration reads as: its clearance and data access, by the rules of a timeline reader. */
  reader: Principal;
  /** Its url, signing key and connection pools. */
  endpoint: WebhookEndpoint;
}

export interface WebhookMessage extends OutboundMessage {
  body: string;
}

export const webhookReader = (id: string, clearance: string, dataAccess: string[]): Principal => ({
  sub: `webhook:${id}`,
  roles: [TIMELINE_ROLES.reader],
  clearance: clearance as Visibility,
  dataAccess: dataAccess as DataClass[],
  authenticated: true,
});

/** `webhook-id`: one per event and registration, the same on every retry and re-send. */
export const webhookMessageId = (webhookId: string, event: RecordedEvent): string =>
  `msg_${createHash('sha256').update(`${webhookId}\n${event.position}\n${event.event.id}`).digest('base64url').slice(0, 32)}`;


/**
 * Webhooks as an outbound channel: the timeline events a registration asked
 * for, as a reader with its clearance and data access sees them (withheld
 * events are not sent; the rest redacted as on every read), each body the
 * stored CloudEvent in structured mode, signed per Standard Webhooks.
 */
export class WebhookChannel implements OutboundChannel<WebhookTarget, WebhookMessage> {
  readonly name = WEBHOOK_CHANNEL;
  private readonly views: ReaderViews;

  constructor(
    authorizer: TimelineAuthorizer,
    progress: ProjectionProgress,
    progressWaitMs: number,
    private readonly sender: WebhookSender,
    private readonly disable: (id: string) => Promise<void>,
  ) {
    this.views = new ReaderViews(async (reader, events) => {
      const rows = events.map(recordedTimelineRow).filter((row): row is TimelineRow => row !== undefined);
      if (rows.length === 0) return new Map();
      // Whether an incident is withheld is read from the incidents read model: it must show these events first.
      await progress.waitFor(rows[rows.length - 1].position, progressWaitMs);
      const shown = await authorizer.show(reader, 'timeline.read', rows);
      return new Map(shown.map(({ row, entry }) => [row.position, { eventId: row.entry.id, body: JSON.stringify(entry.entry.event) }]));
    });
  }

  async prepare(target: WebhookTarget, events: RecordedEvent[]): Promise<WebhookMessage[]> {
    const wanted = events.filter((recorded) => incidentIdOfStream(recorded.streamId) !== undefined && target.eventTypes.some((p) => typeMatches(p, recorded.event.type)));
    if (wanted.length === 0) return [];
    const views = await this.views.of(target.reader, wanted);
    return wanted.flatMap((recorded, i) => {
      const view = views[i];
      return view ? [{ eventId: view.eventId, position: recorded.position, messageId: webhookMessageId(target.id, recorded), body: view.body }] : [];
    });
  }

  async send(target: WebhookTarget, message: WebhookMessage, signal: AbortSignal): Promise<SendOutcome> {
    if (target.endpoint.key === undefined) return { statusCode: null, error: SECRET_UNAVAILABLE };
    return this.sender.send(target.endpoint, message.messageId, message.body, signal);
  }

  async retire(target: WebhookTarget): Promise<void> {
    target.endpoint.destroy();
    await this.disable(target.id);
  }
}

/** Whether an event type matches a registration's pattern: exact, a prefix ending in `*`, or `*`. */
export const typeMatches = (pattern: string, type: string): boolean =>
  pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : type === pattern;
