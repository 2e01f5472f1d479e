import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type Principal, TIMELINE_ROLES } from '@im/access';
import type { MetricsGroup, MetricsGrouping } from '@im/incidents';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { CSV_CONTENT_TYPE, metricsCsv, metricsCsvDisposition } from './incident-metrics.csv';
import { parseMetricsFormat, parseMetricsQuery } from './incident-metrics.query';
import { IncidentMetricsService } from './incident-metrics.service';
import { InsightsApiDocs } from './insights.api-docs';

export interface MetricsAnswer {
  from: string;
  to: string;
  group_by: MetricsGrouping;
  groups: MetricsGroup[];
}

/** GET /api/v1/analytics/incidents: the response metrics (docs/api.md, "Insights: response metrics"). */
@InsightsApiDocs.controller
@Controller('api/v1/analytics')
export class InsightsController {
  constructor(private readonly metrics: IncidentMetricsService) {}

  @Get('incidents')
  @RequireRole(TIMELINE_ROLES.reader)
  @InsightsApiDocs.incidentMetrics
  async incidentMetrics(
    @Query() query: Record<string, unknown>,
    @Headers('accept') accept: string | undefined,
    @CurrentPrincipal() caller: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MetricsAnswer | string> {
    const request = parseMetricsQuery(query);
    const format = parseMetricsFormat(accept);
    const groups = await this.metrics.groups(caller, request);
    void reply.header('vary', 'accept');
    if (format === 'json') return { from: request.from, to: request.to, group_by: request.groupBy, groups };
    void reply.header('content-type', CSV_CONTENT_TYPE).header('content-disposition', metricsCsvDisposition(request));
    return metricsCsv(groups);
  }
}
