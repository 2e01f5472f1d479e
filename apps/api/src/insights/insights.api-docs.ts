import { ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { TIMESTAMP_RULE } from '@im/cloudevents';
import { METRICS_GROUPINGS } from '@im/incidents';
import { ApiErrors, apiDocs } from '../http/api-docs.decorators';
import { METRICS_CSV_HEADER } from './incident-metrics.csv';
import { MAX_METRICS_WINDOW_DAYS } from './incident-metrics.query';

const SECONDS = { type: 'number', nullable: true, description: 'Seconds; null when no incident of the group has the time' };
const TIMES = { type: 'object', required: ['p50', 'p90', 'mean'], properties: { p50: SECONDS, p90: SECONDS, mean: SECONDS } };
const COUNT = { type: 'integer', minimum: 0 };
const GROUP = {
  type: 'object',
  required: ['key', 'incidents', 'acknowledged', 'resolved', 'escalated', 'canceled', 'duplicates', 'alerts', 'time_to_acknowledge', 'time_to_resolve'],
  properties: {
    key: {
      type: 'string',
      nullable: true,
      description: "The service's name (its id once deleted; null: no service), the severity (SEV-1), the ISO week (2026-W49), or null for none",
    },
    incidents: { ...COUNT, description: 'Declared in the window, neither canceled nor a duplicate' },
    acknowledged: COUNT,
    resolved: COUNT,
    escalated: { ...COUNT, description: 'With at least one im.paging.escalate' },
    canceled: COUNT,
    duplicates: COUNT,
    alerts: COUNT,
    time_to_acknowledge: { ...TIMES, description: "From the declaration's record time to the first acknowledgement's" },
    time_to_resolve: { ...TIMES, description: "From the declaration's record time to the first resolution's" },
  },
};
const METRICS = {
  type: 'object',
  required: ['from', 'to', 'group_by', 'groups'],
  properties: {
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    group_by: { type: 'string', enum: [...METRICS_GROUPINGS] },
    groups: { type: 'array', items: GROUP, description: 'Sorted by key, null last' },
  },
};
const INSTANT = { type: 'string', format: 'date-time' };

/** The OpenAPI declaration of the insights route; the controller only routes. */
export const InsightsApiDocs = {
  controller: apiDocs(ApiTags('insights')),

  incidentMetrics: apiDocs(
    ApiOperation({
      summary: 'Response metrics of the incidents declared in [from, to) that the caller may see, grouped; needs timeline.reader',
      description:
        'Times are seconds between ledger record times; percentiles are nearest-rank; canceled and duplicate incidents count in their own fields only ' +
        '(docs/api.md, "Insights: response metrics"). `Accept: text/csv` answers the same groups as CSV (RFC 4180) with the header row ' +
        `\`${METRICS_CSV_HEADER}\`.`,
    }),
    ApiQuery({ name: 'from', required: true, schema: INSTANT, description: `Inclusive; ${TIMESTAMP_RULE}` }),
    ApiQuery({ name: 'to', required: true, schema: INSTANT, description: `Exclusive, after from and at most ${MAX_METRICS_WINDOW_DAYS} days from it` }),
    ApiQuery({ name: 'group_by', required: false, schema: { type: 'string', enum: [...METRICS_GROUPINGS], default: 'none' }, description: 'week: the ISO week, UTC' }),
    ApiHeader({ name: 'accept', required: false, schema: { type: 'string', enum: ['application/json', 'text/csv'] } }),
    ApiResponse({
      status: 200,
      description: 'The groups; as CSV an attachment (Content-Disposition), one row per group, empty fields for nulls',
      headers: { 'Content-Disposition': { description: 'CSV only: attachment; filename="incident-metrics-<from>-<to>.csv"', schema: { type: 'string' } } },
      content: { 'application/json': { schema: METRICS }, 'text/csv': { schema: { type: 'string' } } },
    }),
    ApiErrors(400),
  ),
};
