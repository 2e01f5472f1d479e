import type { CloudEvent } from '@im/cloudevents';
import type { AppendAnswer } from '@im/timeline-append';
import { type ClientError, classify } from '../errors/error-mapping';
import type { BatchItem } from './cloud-event.body';

/**
 * One event's entry in an answer that reports several appends (a CloudEvents
 * batch, an alert receiver's alerts), in the order they were sent: what the
 * event would have been answered alone, with its status.
 */
export type AppendResult =
  | ({ index: number; status: 201 | 200 } & AppendAnswer)
  | { index: number; status: number; error: string };

/** A stored event (201) or a duplicate of one (200). */
export const appendedResult = (index: number, answer: AppendAnswer): AppendResult => ({ index, status: answer.created ? 201 : 200, ...answer });

/** An event refused as appending it alone would have been. */
export const refusedResult = (index: number, { status, message }: ClientError): AppendResult => ({ index, status, error: message });

/**
 * Runs one append and turns its outcome into its entry: 201 or 200 with the
 * answer, or the status and message of a client error (400, 403, 404, 409,
 * 413). A server error (503, 507, 500) is thrown: the whole request fails and
 * the sender retries it; appends already made answer as duplicates then.
 */
export async function appendResultOf(index: number, append: () => Promise<AppendAnswer>): Promise<AppendResult> {
  try {
    return appendedResult(index, await append());
  } catch (error) {
    const client = classify(error);
    if (client.status >= 500) throw error;
    return refusedResult(index, client);
  }
}

/** A batch: each event appended as if alone, in order; a refusal is its own entry's answer and undoes nothing. */
export async function appendBatch(batch: BatchItem[], append: (event: CloudEvent) => Promise<AppendAnswer>): Promise<AppendResult[]> {
  const results: AppendResult[] = [];
  for (const [index, item] of batch.entries()) {
    results.push(await appendResultOf(index, () => ('refused' in item ? Promise.reject(item.refused) : append(item.event))));
  }
  return results;
}
