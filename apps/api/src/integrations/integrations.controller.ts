import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { type Principal, TIMELINE_ROLES } from '@im/access';
import { AcceptsIntegrationKey, CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { type AlertResults, AlertIngestion } from './alert-ingestion';
import { parseAlertmanagerPayload, parseGrafanaPayload } from './alert-payload.body';
import { IntegrationsApiDocs } from './integrations.api-docs';

/** Webhook receivers of monitoring systems: each alert of a payload becomes one ledger event. */
@IntegrationsApiDocs.controller
@Controller('api/v1/integrations')
export class IntegrationsController {
  constructor(private readonly alerts: AlertIngestion) {}

  @Post('alertmanager')
  @HttpCode(200)
  @RequireRole(TIMELINE_ROLES.writer)
  @AcceptsIntegrationKey()
  @IntegrationsApiDocs.alertmanager
  alertmanager(@Body() body: unknown, @CurrentPrincipal() writer: Principal): Promise<AlertResults> {
    return this.alerts.ingest(parseAlertmanagerPayload(body), writer);
  }

  @Post('grafana')
  @HttpCode(200)
  @RequireRole(TIMELINE_ROLES.writer)
  @AcceptsIntegrationKey()
  @IntegrationsApiDocs.grafana
  grafana(@Body() body: unknown, @CurrentPrincipal() writer: Principal): Promise<AlertResults> {
    return this.alerts.ingest(parseGrafanaPayload(body), writer);
  }
}
