import type { TimelineEntry } from '@im/read-models';

/** One line of text: no line breaks, no raw HTML. */
const inline = (value: string) => value.replace(/[\r\n]+/g, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * Multi-line event text, kept readable but unable to forge structure: a line
 * that would start a heading, rule, list, quote or table is escaped.
 */
const block = (value: string) =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .split(/\r?\n/)
    .map((line) => line.replace(/^(\s*)([#>*+|=_-]|\d+[.)])/, '$1\\$2'))
    .join('\n');

const dataValue = (value: unknown) => inline(typeof value === 'string' ? value : JSON.stringify(value));

/** The Markdown export layout of interface.md. */
export function renderTimelineMarkdown(incidentId: string, entries: TimelineEntry[], generatedAt: string): string {
  const lines = [`# Timeline: ${inline(incidentId)}`, '', `Incident: ${inline(incidentId)}`, '', `Generated: ${generatedAt}`, ''];
  for (const entry of entries) {
    lines.push('---', '', `## ${entry.eventTime} - ${inline(entry.eventType)}`, '');
    lines.push(`Actor: ${inline(entry.actor)}`, '', `Source: ${inline(entry.source)}`, '');
    lines.push(block(entry.content || entry.title), '');
    const data = Object.entries(entry.data);
    lines.push('Data:', '');
    if (data.length === 0) lines.push('- (none)');
    data.forEach(([key, value]) => lines.push(`- ${inline(key)}: ${dataValue(value)}`));
    lines.push('');
  }
  return lines.join('\n');
}
