import type { NotificationContent } from '@im/read-models';

const WHY: Record<string, (content: NotificationContent) => string> = {
  assigned: () => 'You were given a role on this incident.',
  declared_ic: () => 'Declared with you as incident commander.',
  severity_changed: ({ severity }) => `Its severity is now ${severity}.`,
  status_changed: ({ status }) => `It is now ${status}.`,
};

/** The mail: subject and plain text, from the content alone (title, severity, status, link: never timeline content). */
export function notificationMail(content: NotificationContent): { subject: string; text: string } {
  const why = (WHY[content.trigger] ?? (() => ''))(content);
  return {
    subject: `[${content.severity}] ${content.incident_id}: ${content.title}`,
    text: [why, '', `Incident: ${content.incident_id}`, `Title: ${content.title}`, `Severity: ${content.severity}`, `Status: ${content.status}`, '', content.url, ''].join('\n'),
  };
}

/** The push payload (docs/api.md, "Notifications"): exactly these fields, as JSON. */
export function notificationPayload({ incident_id, title, severity, status, trigger, url }: NotificationContent): string {
  return JSON.stringify({ incident_id, title, severity, status, trigger, url });
}
