import { configurationController } from './configuration.controller';
import { parseHeartbeatBody } from './heartbeat.body';
import { HeartbeatsApiDocs } from './oncall.api-docs';

/** Heartbeats: anyone signed in reads them, an `oncall.admin` creates and deletes them (no PUT; pings: heartbeats/heartbeat-pings.controller.ts). */
export const HeartbeatsController = configurationController('HeartbeatsController', 'api/v1/heartbeats', HeartbeatsApiDocs, {
  parse: parseHeartbeatBody,
  create: (commands, input, admin) => commands.createHeartbeat(input, admin),
  remove: (commands, id, admin) => commands.deleteHeartbeat(id, admin),
  list: (oncall) => oncall.heartbeats(),
  get: (oncall, id) => oncall.heartbeat(id),
});
