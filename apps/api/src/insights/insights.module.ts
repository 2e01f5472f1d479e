import { Module } from '@nestjs/common';
import { IncidentMetricsService } from './incident-metrics.service';
import { InsightsController } from './insights.controller';

/** The response metrics over REST; GraphQL's incidentMetrics reads through the same service. */
@Module({ controllers: [InsightsController], providers: [IncidentMetricsService], exports: [IncidentMetricsService] })
export class InsightsModule {}
