import type { Incident } from '@im/incidents';
import type { SignedHead } from '@im/ledger-proof';
import type { TimelineEntry } from '@im/read-models';
import { block, inert, inline, signedHeadParagraphs } from '../markdown/markdown-text';

const dataValue = (value: unknown) => inline(typeof value === 'string' ? value : JSON.stringify(value));

/** What the header says about the incident, and where its keys are published. */
export interface MarkdownAbout {
  /** The incident as the caller may see it (undefined: only its id is shown). */
  incident?: Pick<Incident, 'title' | 'severity' | 'status'>;
  /** The service's own URL (CONSOLE_URL), which the Verify line names for the keys. */
  serviceUrl: string;
}

/** The title, severity and status after the id, each a paragraph of its own, so a reader sees what the incident is. */
function header(incidentId: string, generatedAt: string, about: MarkdownAbout): string[] {
  const { incident } = about;
  const facts = incident ? [`Title: ${inline(incident.title)}`, '', `Severity: ${incident.severity}`, '', `Status: ${incident.status}`, ''] : [];
  return [`# Timeline: ${inline(incidentId)}`, '', `Incident: ${inline(incidentId)}`, '', ...facts, `Generated: ${generatedAt}`, ''];
}

/**
 * The Markdown export layout of docs/api.md, ending with the signed head of the reader's
 * chain and how to verify it (paragraphs only: no rule or list, which stand for events).
 */
export function renderTimelineMarkdown(incidentId: string, entries: TimelineEntry[], generatedAt: string, head: SignedHead | undefined, about: MarkdownAbout): string {
  const lines = header(incidentId, generatedAt, about);
  for (const entry of entries) {
    lines.push('---', '', `## ${entry.eventTime} - ${inline(entry.eventType)}`, '');
    lines.push(`Actor: ${inline(entry.actor)}`, '');
    // The authenticated sender, where it is not the actor the event claims (a relay's events).
    if (entry.sender !== undefined && entry.sender !== entry.actor) lines.push(`Sent by: ${inline(entry.sender)}`, '');
    lines.push(`Source: ${inline(entry.source)}`, '');
    lines.push(block(entry.content || entry.title), '');
    const data = Object.entries(entry.data);
    lines.push('Data:', '');
    if (data.length === 0) lines.push('- (none)');
    // The key opens the list item's content: it could open a block there.
    data.forEach(([key, value]) => lines.push(`- ${inert(inline(key))}: ${dataValue(value)}`));
    lines.push('');
  }
  if (head) lines.push(...signedHeadParagraphs(incidentId, head, about.serviceUrl));
  return lines.join('\n');
}
