import type { NotificationContent } from '@im/read-models';
import { oneLine } from '@im/incidents';

const WHY: Record<string, (content: NotificationContent) => string> = {
  assigned: () => 'You were given a role on this incident.',
  declared_ic: () => 'Declared with you as incident commander.',
  severity_changed: ({ severity }) => `Its severity is now ${severity}.`,
  status_changed: ({ status }) => `It is now ${status}.`,
};

/**
 * The content as mail and push show it: each value on one line. A title is a
 * sender's text (any timeline.writer's); with its line breaks it could add
 * official-looking lines ("Status: resolved", a payment link) to the body.
 */
function shown(content: NotificationContent): NotificationContent {
  const one = { ...content };
  for (const name of Object.keys(one) as (keyof NotificationContent)[]) one[name] = oneLine(one[name]);
  return one;
}

/** The mail: subject and plain text, from the content alone (title, severity, status, link: never timeline content). */
export function notificationMail(sent: NotificationContent): { subject: string; text: string } {
  const content = shown(sent);
  const why = (WHY[content.trigger] ?? (() => ''))(content);
  return {
    subject: `[${content.severity}] ${content.incident_id}: ${content.title}`,
    text: [why, '', `Incident: ${content.incident_id}`, `Title: ${content.title}`, `Severity: ${content.severity}`, `Status: ${content.status}`, '', content.url, ''].join('\n'),
  };
}

/** The push payload (docs/api.md, "Notifications"): exactly these fields, as JSON. */
export function notificationPayload(sent: NotificationContent): string {
  const { incident_id, title, severity, status, trigger, url } = shown(sent);
  return JSON.stringify({ incident_id, title, severity, status, trigger, url });
}
