import { type Incident, INCIDENT_EVENT_TYPES, PAGING_EVENT_TYPES, pageOf, RACI_ROLES } from '@im/incidents';
import type { SignedHead } from '@im/ledger-proof';
import type { TimelineEntry } from '@im/read-models';
import { inline, signedHeadParagraphs } from '../markdown/markdown-text';
import { durationText } from './duration-text';

/** What a postmortem draft is made of, all as the caller may see it. */
export interface PostmortemFacts {
  incident: Pick<Incident, 'id' | 'title' | 'severity' | 'status' | 'createdAt' | 'roles'>;
  /** The name of the service the incident belongs to; undefined: none (or one deleted since). */
  serviceName?: string;
  /** The events the caller is shown, redacted, in timeline order (event time, then log position). */
  entries: TimelineEntry[];
  /** The signed head of the caller's chain. */
  head: SignedHead;
  /** The service's own URL (CONSOLE_URL), which the Verify line names for the keys. */
  serviceUrl: string;
}

const NOT_YET = 'not yet';
const NONE = 'none';
const FOR_THE_TEAM = '(for the team to fill in)';

/** The record time of the first event of the type, by record time; undefined when the caller sees none. */
const firstRecorded = (entries: TimelineEntry[], type: string): string | undefined =>
  entries
    .filter((entry) => entry.eventType === type)
    .map((entry) => entry.createdAt)
    .reduce<string | undefined>((first, at) => (first === undefined || Date.parse(at) < Date.parse(first) ? at : first), undefined);

const since = (declared: string, at: string | undefined) => (at === undefined ? NOT_YET : durationText(Date.parse(at) - Date.parse(declared)));

function summary({ incident, serviceName, entries }: PostmortemFacts): string[] {
  const acknowledged = firstRecorded(entries, INCIDENT_EVENT_TYPES.ack);
  const resolved = firstRecorded(entries, INCIDENT_EVENT_TYPES.resolve);
  return [
    '## Summary',
    '',
    `- Incident: ${inline(incident.id)}`,
    `- Service: ${serviceName === undefined ? NONE : inline(serviceName)}`,
    `- Severity: ${incident.severity}`,
    `- Status: ${incident.status}`,
    `- Declared: ${incident.createdAt}`,
    `- Acknowledged: ${acknowledged ?? NOT_YET}`,
    `- Resolved: ${resolved ?? NOT_YET}`,
    `- Time to acknowledge: ${since(incident.createdAt, acknowledged)}`,
    `- Time to resolve: ${since(incident.createdAt, resolved)}`,
    '',
    'Times are the ledger’s record times (UTC) of the events shown to you. The time to acknowledge runs from the declaration to the first acknowledgement, the time to resolve from the declaration to the first resolution, in whole seconds rounded down.',
    '',
  ];
}

/** One line per page: when, which step of which round, and the users it paged, as the caller sees the im.paging.page event. */
function pageLine(entry: TimelineEntry): string {
  const page = pageOf({ type: entry.eventType, incidentId: entry.incidentId, time: entry.eventTime, data: entry.data })!;
  const at = page.notice ? `step ${page.notice.step}, round ${page.notice.round}` : 'step and round not recorded';
  return `- ${entry.eventTime}, ${at}: ${page.users.length > 0 ? page.users.map(inline).join(', ') : 'no one'}`;
}

function responders({ incident, entries }: PostmortemFacts): string[] {
  const roles = RACI_ROLES.map((role) => `- ${role}: ${incident.roles?.[role] === undefined ? NONE : inline(incident.roles[role])}`);
  const pages = entries.filter((entry) => entry.eventType === PAGING_EVENT_TYPES.page).map(pageLine);
  return ['## Responders', '', ...roles, '', 'Paged:', '', ...(pages.length > 0 ? pages : ['- no one']), ''];
}

/** Each event on one line after a fixed prefix: no event text can start a block, a heading or a section. */
const timelineLine = (entry: TimelineEntry) =>
  `- ${entry.eventTime} · ${inline(entry.eventType)} · ${inline(entry.actor)} · ${inline(entry.content || entry.title)}`;

/** A heading's text, escaped, its trailing #s kept as text (unescaped, they would close the heading and vanish). */
const headingText = (text: string) => inline(text).replace(/#(#*\s*)$/, '\\#$1');

/**
 * The postmortem draft of docs/api.md: the summary, the responders, the timeline, two sections
 * left for the team, and the signed head of the caller's chain, as the Markdown export ends.
 * Every text a sender wrote goes through the export's escaping.
 */
export function renderPostmortem(facts: PostmortemFacts): string {
  const { incident, entries } = facts;
  return [
    `# Postmortem: ${headingText(incident.title)}`,
    '',
    ...summary(facts),
    ...responders(facts),
    '## Timeline',
    '',
    ...(entries.length > 0 ? entries.map(timelineLine) : ['- no events shown']),
    '',
    '## Contributing factors',
    '',
    FOR_THE_TEAM,
    '',
    '## Action items',
    '',
    FOR_THE_TEAM,
    '',
    // A rule, so the head does not read as one of the action items.
    '---',
    '',
    ...signedHeadParagraphs(incident.id, facts.head, facts.serviceUrl),
  ].join('\n');
}
