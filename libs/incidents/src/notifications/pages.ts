import type { LedgerEvent } from '../incident-events';

/** A paging of one escalation step, in the incident's stream (docs/api.md, "On call"): a public contract. */
export const PAGE_EVENT_TYPE = 'im.paging.page';

/** Which step of which round of the escalation policy a page is (both from 1). */
export interface PageNotice {
  step: number;
  round: number;
}

/** A page as the notifications read it: who is paged, each once in the event's order, and at which step and round. */
export interface Page {
  users: string[];
  /** Undefined when the event does not say (the page still goes: waking the responder matters more than the step's number). */
  notice?: PageNotice;
}

const count = (value: unknown): number | undefined => (Number.isInteger(value) && (value as number) >= 1 ? (value as number) : undefined);

/**
 * The page an `im.paging.page` event records; undefined for any other event.
 * Its `paged` entries name users (`{user, via}`); one without a user names no
 * one and is skipped.
 */
export function pageOf(event: LedgerEvent): Page | undefined {
  if (event.type !== PAGE_EVENT_TYPE) return undefined;
  const paged: unknown[] = Array.isArray(event.data?.paged) ? event.data.paged : [];
  const users = paged.flatMap((entry) => {
    const user = (entry as { user?: unknown } | null)?.user;
    return typeof user === 'string' && user !== '' ? [user] : [];
  });
  const step = count(event.data?.step);
  const round = count(event.data?.round);
  return { users: [...new Set(users)], notice: step !== undefined && round !== undefined ? { step, round } : undefined };
}
