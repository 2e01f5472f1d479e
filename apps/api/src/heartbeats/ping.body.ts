import { jsonObjectBody } from '../http/json-body.parser';

/**
 * Whether a ping's body counts as a ping: none, or any JSON object (an
 * Alertmanager or Grafana webhook payload among them), except an alert
 * payload whose status is `resolved`: that is the notification that the
 * alert meant to keep the heartbeat alive (the Watchdog) stopped firing.
 */
export function isPing(body: unknown): boolean {
  if (body === undefined) return true;
  const raw = jsonObjectBody(body);
  return !(Array.isArray(raw.alerts) && raw.status === 'resolved');
}
