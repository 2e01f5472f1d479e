import { incidentProjection } from './incidents/incident.projection';
import { timelineProjection } from './timeline/timeline.projection';
import { assignmentProjection } from './assignments/assignment.projection';
import { preferencesProjection } from './preferences/preferences.projection';
import { probeProjection } from './probes/probe.projection';
import { integrationKeyProjection } from './integration-keys/integration-key.projection';
import { integrationKeyHistoryProjection } from './integration-keys/integration-key-history.projection';
import { webhookProjection } from './webhooks/webhook.projection';
import { pushSubscriptionProjection } from './push-subscriptions/push-subscription.projection';
import { escalationPolicyProjection, scheduleProjection, serviceProjection } from './oncall/oncall.projections';
import { heartbeatProjection } from './oncall/heartbeat.projection';
import { incidentMetricsProjection } from './metrics/incident-metrics.projection';
import type { Projection } from './projection';

/** Every read model the service keeps, in the order a rebuild replays them; the stores make a collection for each. */
export const ALL_PROJECTIONS: Projection<unknown>[] = [
  incidentProjection,
  timelineProjection,
  assignmentProjection,
  preferencesProjection,
  probeProjection,
  integrationKeyProjection,
  integrationKeyHistoryProjection,
  webhookProjection,
  pushSubscriptionProjection,
  serviceProjection,
  escalationPolicyProjection,
  scheduleProjection,
  heartbeatProjection,
  incidentMetricsProjection,
] as Projection<unknown>[];
