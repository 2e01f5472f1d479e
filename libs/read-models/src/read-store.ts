import type { ProjectionStore } from './projection-store.port';
import type { IncidentQueries } from './incidents/incident-queries.port';
import type { TimelineQueries } from './timeline/timeline-queries.port';
import type { PreferencesQueries } from './preferences/preferences-queries.port';
import type { IntegrationKeyQueries } from './integration-keys/integration-key-queries.port';
import type { IntegrationKeyHistoryQueries } from './integration-keys/integration-key-history-queries.port';
import type { WebhookQueries } from './webhooks/webhook-queries.port';
import type { OutboundStore } from './outbound/outbound-store.port';
import type { NotificationStore } from './notifications/notification-store.port';
import type { PushSubscriptionQueries } from './push-subscriptions/push-subscription-queries.port';
import type { OncallQueries } from './oncall/oncall-queries.port';
import type { LeaseStore } from './leases/lease-store.port';
import type { IncidentMetricsQueries } from './metrics/incident-metrics-queries.port';

/**
 * What a read-store adapter opens over one file or connection: the projections'
 * storage and the query port of each read model. Nothing injects it whole:
 * libs/persistence binds each port to its part, and closes it.
 */
export interface ReadStore extends ProjectionStore {
  readonly incidents: IncidentQueries;
  readonly timeline: TimelineQueries;
  readonly preferences: PreferencesQueries;
  readonly integrationKeys: IntegrationKeyQueries;
  readonly integrationKeyHistory: IntegrationKeyHistoryQueries;
  readonly webhooks: WebhookQueries;
  /** Outbound deliveries (webhooks): not a read model, never reset by a rebuild. */
  readonly outbound: OutboundStore;
  readonly pushSubscriptions: PushSubscriptionQueries;
  readonly oncall: OncallQueries;
  readonly metrics: IncidentMetricsQueries;
  /** Notification decisions: not a read model, never reset by a rebuild. */
  readonly notifications: NotificationStore;
  /** Which process runs the projections, each outbound channel and the timers: kept in the same database, never reset by a rebuild. */
  readonly leases: LeaseStore;
  close(): Promise<void>;
}
