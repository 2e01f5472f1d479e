// The read models and their ports. The adapters are entry points of their own
// (@im/read-models/sqlite, @im/read-models/mongodb, @im/read-models/postgres), so
// that importing a helper from here loads no database driver.
export * from './projection';
export * from './projection-store.port';
export * from './read-store';
export * from './projection-runner';
export * from './projection-worker';
export * from './projection-fault';
export * from './projection-progress';
export * from './read-models';
export * from './incidents/incident.projection';
export * from './incidents/incident-queries.port';
export * from './timeline/timeline.projection';
export * from './timeline/timeline-queries.port';
export * from './timeline/timeline-event.view';
export * from './assignments/assignment.projection';
export * from './preferences/preferences.projection';
export * from './preferences/preferences-queries.port';
export * from './probes/probe.projection';
export * from './integration-keys/integration-key.projection';
export * from './integration-keys/integration-key-queries.port';
export * from './integration-keys/integration-key-history.projection';
export * from './integration-keys/integration-key-history-queries.port';
export * from './webhooks/webhook.projection';
export * from './webhooks/webhook-queries.port';
export * from './outbound/outbound-store.port';
export * from './notifications/notification-store.port';
export * from './leases/lease-store.port';
export * from './push-subscriptions/push-subscription.projection';
export * from './push-subscriptions/push-subscription-queries.port';
export * from './oncall/oncall.projections';
export * from './oncall/oncall-queries.port';
export * from './oncall/compiled-schedules';
export * from './oncall/heartbeat.projection';
export * from './metrics/incident-metrics.projection';
export * from './metrics/incident-metrics-queries.port';
export * from './metrics/incident-facts-index';
