import { DATA_CLASSES, type DataClass, VISIBILITIES, type Visibility } from '@im/cloudevents';
import { InvalidError, WEBHOOK_URL_MAX_LENGTH } from '@im/incidents';
import type { Principal } from '@im/access';
import type { CreateWebhookInput } from '@im/outbound';
import { refuseAboveClearance, refuseBeyondDataAccess } from '../auth/caller-limits';
import { jsonObjectBody } from '../http/json-body.parser';
import { TYPE_PATTERN } from '../timeline/timeline-filter';

/** What a registration sees by default (docs/api.md, "Webhooks"): internal, no data class. */
export const DEFAULT_WEBHOOK_CLEARANCE: Visibility = 'internal';

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

function urlProblem(url: unknown): string | undefined {
  if (typeof url !== 'string' || url.length > WEBHOOK_URL_MAX_LENGTH) return `url is required and must be an http(s) URL of at most ${WEBHOOK_URL_MAX_LENGTH} characters`;
  if (!URL.canParse(url)) return 'url must be an absolute http(s) URL';
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'url must be an absolute http(s) URL';
  // The url is shown to every webhooks admin and kept in the ledger: a credential in it would be too.
  if (parsed.username || parsed.password) return 'url must not carry a user name or password: deliveries are signed instead';
  return undefined;
}

/** Why a registration may not read more than its registrant (docs/security.md). */
export const REGISTRANT_LIMIT = 'a webhook is sent no more than the admin who registers it may read';

/**
 * POST /api/v1/webhooks: `{url, event_types, clearance?, data_access?,
 * description?}`; any other field is ignored. The registration reads as a
 * timeline reader with its clearance and data access, so neither may exceed the
 * registering admin's own (403, the same rule as a declare's visibility;
 * `visibleLevels` are the levels the admin clears). Whether the url's address
 * may be reached is checked next, with DNS (checkDestination).
 */
export function parseCreateWebhookBody(body: unknown, admin: Principal, visibleLevels: readonly string[]): CreateWebhookInput {
  const fields = jsonObjectBody(body);
  const { url, event_types: eventTypes, clearance = DEFAULT_WEBHOOK_CLEARANCE, data_access: dataAccess = [], description = null } = fields;
  const problems = [
    urlProblem(url),
    !(isStrings(eventTypes) && eventTypes.length > 0 && eventTypes.every((type) => TYPE_PATTERN.test(type))) &&
      'event_types is required and must list event types, each optionally ending in * (e.g. im.incident.*), or *',
    !(VISIBILITIES as readonly unknown[]).includes(clearance) && `clearance must be one of ${VISIBILITIES.join(', ')}`,
    !(isStrings(dataAccess) && dataAccess.every((c) => (DATA_CLASSES as readonly string[]).includes(c))) && `data_access must be a list of ${DATA_CLASSES.join(', ')}`,
    !(description === null || typeof description === 'string') && 'description must be a string',
  ].filter((problem): problem is string => typeof problem === 'string');
  if (problems.length) throw new InvalidError(problems.join('; '));
  refuseAboveClearance(fields.clearance === undefined ? 'the default clearance' : 'clearance', clearance as string, admin, visibleLevels, REGISTRANT_LIMIT);
  refuseBeyondDataAccess('data_access', dataAccess as DataClass[], admin, REGISTRANT_LIMIT);
  return {
    url: new URL(url as string),
    eventTypes: eventTypes as string[],
    clearance: clearance as Visibility,
    dataAccess: dataAccess as DataClass[],
    description: description as string | null,
  };
}
