import { BATCH_MEDIA_TYPE, binaryModeEvent, checkCloudEvent, type CloudEvent, contentModeOf, type HttpHeaders, MAX_BATCH_EVENTS } from '@im/cloudevents';
import { DomainError, InvalidError, TooLargeError } from '@im/incidents';

/** One event of a CloudEvents batch, parsed on its own: a refusal belongs to that event only. */
export type BatchItem = { event: CloudEvent } | { refused: DomainError };

/** What POST /api/v1/timeline/events was sent, whichever content mode it used. */
export type AppendRequest = { mode: 'single'; event: CloudEvent } | { mode: 'batch'; batch: BatchItem[] };

/** One structured-mode event: it must be one valid CloudEvent (413 when it is over the event size limit). */
export function parseCloudEventBody(body: unknown): CloudEvent {
  const check = checkCloudEvent(body);
  if (check.ok) return check.event;
  const message = `Invalid CloudEvent: ${check.errors.join('; ')}`;
  throw check.tooLarge ? new TooLargeError(message) : new InvalidError(message);
}

function parseBatchItem(body: unknown): BatchItem {
  try {
    return { event: parseCloudEventBody(body) };
  } catch (error) {
    if (error instanceof DomainError) return { refused: error };
    throw error;
  }
}

/**
 * POST /api/v1/timeline/events in the content mode its Content-Type chooses
 * (the CloudEvents HTTP binding): structured, binary (`ce-*` headers) or a
 * batch. The body parser has already refused, with 415, a media type in no mode.
 */
export function parseAppendRequest(headers: HttpHeaders, body: unknown): AppendRequest {
  const mode = contentModeOf(headers['content-type'] as string | undefined, headers) ?? 'structured';
  if (mode === 'structured') return { mode: 'single', event: parseCloudEventBody(body) };
  if (mode === 'binary') {
    const binary = binaryModeEvent(headers, body);
    if (!binary.ok) throw new InvalidError(`Invalid CloudEvent: ${binary.errors.join('; ')}`);
    return { mode: 'single', event: parseCloudEventBody(binary.event) };
  }
  if (!Array.isArray(body)) throw new InvalidError(`A batch (${BATCH_MEDIA_TYPE}) must be a JSON array of structured CloudEvents`);
  if (body.length > MAX_BATCH_EVENTS) throw new TooLargeError(`A batch may hold at most ${MAX_BATCH_EVENTS} events, not ${body.length}`);
  return { mode: 'batch', batch: body.map(parseBatchItem) };
}
