import type { CloudEvent } from './cloud-event';
import { isJsonMediaType } from './http-binding';

/**
 * Who sent an event: the authenticated caller that wrote it (a token's `sub`, an integration
 * key's `integration:<id>`), recorded by the service beside the actor the event claims.
 * It is a member of `data`, so the ledger commits it as a redactable member exactly as the
 * letter of the verifiable ledger's committed form does (a new attribute would be one more
 * member outside it, and a verifier written from that text alone would fail on every event).
 * An event whose data is not JSON (data_base64) has no `data` to hold it and records it as
 * the attribute of the same name. See docs/security.md, "Who wrote an event".
 */
export const SENDER = 'im.sender';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The sender an event records; undefined for events stored before senders were recorded. */
export function senderOf(event: CloudEvent): string | undefined {
  const recorded = isObject(event.data) ? event.data[SENDER] : (event as unknown as Record<string, unknown>)[SENDER];
  return typeof recorded === 'string' ? recorded : undefined;
}

/** The event with its sender recorded; whatever the writer put in that place is replaced. */
export function withSender(event: CloudEvent, sender: string): CloudEvent {
  const { [SENDER]: _claimed, ...rest } = event as unknown as Record<string, unknown>;
  const binary = event.data_base64 !== undefined || (event.data === undefined && event.datacontenttype !== undefined && !isJsonMediaType(event.datacontenttype));
  if (binary) return { ...rest, [SENDER]: sender } as unknown as CloudEvent;
  return { ...(rest as unknown as CloudEvent), data: { ...event.data, [SENDER]: sender } };
}
