import type { ClientError } from '../errors/error-mapping';
import type { AppendAnswer } from './timeline-append.handler';

/**
 * One event's outcome in an answer that carries several (a CloudEvents batch,
 * an alert source's payload): what appending it alone would have answered,
 * with its place in the request.
 */
export type AppendResult =
  | ({ index: number; status: 200 | 201 } & AppendAnswer)
  | { index: number; status: number; error: string };

/** A stored event (201) or a duplicate of one (200). */
export const appendedResult = (index: number, answer: AppendAnswer): AppendResult => ({ index, status: answer.created ? 201 : 200, ...answer });

/** An event refused as appending it alone would have been. */
export const refusedResult = (index: number, { status, message }: ClientError): AppendResult => ({ index, status, error: message });
