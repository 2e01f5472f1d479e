import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { IncidentQueryService, type Principal } from '@im/access';
import { inTimelineOrder, LedgerExports } from '../ledger-proof/ledger-exports';
import { OncallQueryService } from '../oncall/oncall-query.service';
import { renderPostmortem } from './postmortem-markdown';

/**
 * GET /api/v1/incidents/:id/postmortem: a draft from the caller's export of the ledger, the
 * same read as the Markdown export's (policy, withholding, redaction, the signed head).
 */
@Injectable()
export class PostmortemDrafts {
  constructor(
    private readonly ledger: LedgerExports,
    private readonly incidents: IncidentQueryService,
    private readonly oncall: OncallQueryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async draft(caller: Principal, incidentId: string): Promise<string> {
    const exported = await this.ledger.export(caller, incidentId);
    const incident = await this.incidents.get(caller, incidentId);
    const [service] = await this.oncall.servicesOf([incident]);
    return renderPostmortem({
      incident,
      serviceName: service?.name,
      entries: inTimelineOrder(exported.events).map((e) => e.shown.entry),
      head: exported.head,
      // As the export's Verify line: the configured address, not the request's Host.
      serviceUrl: this.config.notifications.consoleUrl,
    });
  }
}
