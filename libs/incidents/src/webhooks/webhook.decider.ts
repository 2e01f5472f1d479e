import type { Decider, StreamEvent } from '../decider';
import { ConflictError, InvalidError, NotFoundError } from '../domain-errors';
import { WEBHOOKS_STREAM } from '../stream-names';

/** Event type strings are a public contract: never rename them. */
export const WEBHOOK_REGISTERED_TYPE = 'im.webhook.registered';
export const WEBHOOK_REMOVED_TYPE = 'im.webhook.removed';
export const WEBHOOK_DISABLED_TYPE = 'im.webhook.disabled';

export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 500;
export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_EVENT_TYPES_MAX = 50;

export interface WebhookRegisteredData {
  id: string;
  url: string;
  /** Type patterns as in the timeline filter: an exact type, a prefix ending in `*`, or `*`. */
  event_types: string[];
  clearance: string;
  data_access: string[];
  description: string | null;
  /**
   * The signing secret sealed (AES-256-GCM) under the service's webhook key:
   * the secret itself is needed to sign, so it is kept, but never in clear.
   */
  sealed_secret: string;
}
export interface WebhookRemovedData {
  id: string;
}
export interface WebhookDisabledData {
  id: string;
  /** Why deliveries stopped, e.g. `gone`: the endpoint answered 410. */
  reason: string;
}

export type WebhookEvent =
  | { type: typeof WEBHOOK_REGISTERED_TYPE; data: WebhookRegisteredData }
  | { type: typeof WEBHOOK_REMOVED_TYPE; data: WebhookRemovedData }
  | { type: typeof WEBHOOK_DISABLED_TYPE; data: WebhookDisabledData };

export type WebhookCommand =
  | { kind: 'register'; id: string; url: string; eventTypes: string[]; clearance: string; dataAccess: string[]; description: string | null; sealedSecret: string }
  | { kind: 'remove'; id: string }
  | { kind: 'disable'; id: string; reason: string };

export type WebhookState = 'enabled' | 'disabled' | 'removed';

/** What decisions need of the `webhooks` stream: every registration ever made, and where it stands. */
export interface WebhooksState {
  readonly registrations: ReadonlyMap<string, WebhookState>;
}

export const initialWebhooksState: WebhooksState = { registrations: new Map() };

export const webhookNotFound = (id: string) => new NotFoundError(`Webhook ${id} not found`);

const NEXT_STATE: Record<string, WebhookState> = {
  [WEBHOOK_REGISTERED_TYPE]: 'enabled',
  [WEBHOOK_DISABLED_TYPE]: 'disabled',
  [WEBHOOK_REMOVED_TYPE]: 'removed',
};

export function evolveWebhooks(state: WebhooksState, event: { type: string; data?: unknown }): WebhooksState {
  const id = (event.data as { id?: unknown } | undefined)?.id;
  const next = NEXT_STATE[event.type];
  if (typeof id !== 'string' || next === undefined) return state;
  if (next !== 'enabled' && !state.registrations.has(id)) return state;
  // A removal is final: a disable that raced it changes nothing.
  if (state.registrations.get(id) === 'removed') return state;
  return { registrations: new Map(state.registrations).set(id, next) };
}

/**
 * Registering checks the description and that some event type is named (what
 * the url may be is the edge's rule: it needs DNS). Removing a registration
 * that never existed, or was removed, is not found. Disabling (a 410 from the
 * endpoint) records once; it changes nothing on a removed or disabled one.
 */
export function decideWebhook(command: WebhookCommand, state: WebhooksState): WebhookEvent[] {
  switch (command.kind) {
    case 'register': {
      const { id, url, eventTypes, clearance, dataAccess, description, sealedSecret } = command;
      if (description !== null && description.length > WEBHOOK_DESCRIPTION_MAX_LENGTH) {
        throw new InvalidError(`description must be at most ${WEBHOOK_DESCRIPTION_MAX_LENGTH} characters`);
      }
      if (eventTypes.length === 0 || eventTypes.length > WEBHOOK_EVENT_TYPES_MAX) {
        throw new InvalidError(`event_types must list from 1 to ${WEBHOOK_EVENT_TYPES_MAX} type patterns`);
      }
      if (state.registrations.has(id)) throw new ConflictError(`Webhook ${id} already exists`);
      return [
        {
          type: WEBHOOK_REGISTERED_TYPE,
          data: { id, url, event_types: [...new Set(eventTypes)], clearance, data_access: [...new Set(dataAccess)], description, sealed_secret: sealedSecret },
        },
      ];
    }
    case 'remove': {
      const current = state.registrations.get(command.id);
      if (current === undefined || current === 'removed') throw webhookNotFound(command.id);
      return [{ type: WEBHOOK_REMOVED_TYPE, data: { id: command.id } }];
    }
    case 'disable': {
      return state.registrations.get(command.id) === 'enabled' ? [{ type: WEBHOOK_DISABLED_TYPE, data: { id: command.id, reason: command.reason } }] : [];
    }
    default: {
      const unhandled: never = command;
      throw new InvalidError(`Unknown command ${String((unhandled as { kind?: unknown }).kind)}`);
    }
  }
}

export const webhookDecider: Decider<WebhookCommand, WebhooksState, StreamEvent> = {
  stream: { subject: 'webhooks', streamId: () => WEBHOOKS_STREAM },
  initialState: initialWebhooksState,
  decide: decideWebhook,
  evolve: evolveWebhooks,
};
