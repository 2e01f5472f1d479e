import type { NotificationContent } from '@im/read-models';
import { oneLine } from '@im/incidents';

const WHY: Record<string, (content: NotificationContent) => string> = {
  assigned: () => 'You were given a role on this incident.',
  declared_ic: () => 'Declared with you as incident commander.',
  severity_changed: ({ severity }) => `Its severity is now ${severity}.`,
  status_changed: ({ status }) => `It is now ${status}.`,
  paged: ({ page }) => `You are paged${page ? ` (escalation step ${page.step}, round ${page.round})` : ''}: acknowledge the incident at the link below.`,
};

/**
 * The content as mail and push show it: each value on one line. A title is a
 * sender's text (any timeline.writer's); with its line breaks it could add
 * official-looking lines ("Status: resolved", a payment link) to the body.
 */
function shown(content: NotificationContent): NotificationContent {
  return Object.fromEntries(Object.entries(content).map(([name, value]) => [name, typeof value === 'string' ? oneLine(value) : value])) as NotificationContent;
}

/**
 * The mail: subject and plain text, from the content alone (title, severity,
 * status, link: never timeline content). A page says so first in its subject,
 * where a mail rule can ring for it.
 */
export function notificationMail(sent: NotificationContent): { subject: string; text: string } {
  const content = shown(sent);
  const why = (WHY[content.trigger] ?? (() => ''))(content);
  return {
    subject: `[${content.severity}] ${content.trigger === 'paged' ? 'Paged: ' : ''}${content.incident_id}: ${content.title}`,
    text: [why, '', `Incident: ${content.incident_id}`, `Title: ${content.title}`, `Severity: ${content.severity}`, `Status: ${content.status}`, '', content.url, ''].join('\n'),
  };
}

/** The push payload (docs/api.md, "Notifications"): exactly these fields, as JSON. */
export function notificationPayload(sent: NotificationContent): string {
  const { incident_id, title, severity, status, trigger, url } = shown(sent);
  return JSON.stringify({ incident_id, title, severity, status, trigger, url });
}
