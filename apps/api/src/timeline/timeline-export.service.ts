import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@im/config';
import type { LedgerBundle } from '@im/ledger-proof';
import { IncidentQueryService, type Principal } from '@im/access';
import { inTimelineOrder, LedgerExports } from '../ledger-proof/ledger-exports';
import type { TimelineExportFormat } from './timeline-export.query';
import { renderTimelineMarkdown } from './timeline-markdown';
import { MARKDOWN_CONTENT_TYPE } from '../markdown/markdown-text';

/** An export's body, and its content type when it is not the JSON Fastify gives an object it serialises. */
export interface TimelineExportAnswer {
  body: unknown[] | string | LedgerBundle;
  contentType?: string;
}

/** GET /api/v1/incidents/:id/timeline/export: the caller's ledger export in the format asked (docs/api.md). */
@Injectable()
export class TimelineExports {
  constructor(
    private readonly ledger: LedgerExports,
    private readonly incidents: IncidentQueryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async export(caller: Principal, incidentId: string, format: TimelineExportFormat): Promise<TimelineExportAnswer> {
    const exported = await this.ledger.export(caller, incidentId);
    if (format === 'ledger') return { body: this.ledger.bundle(incidentId, exported) };
    const events = inTimelineOrder(exported.events);
    if (format === 'json') return { body: events.map((e) => e.event) };
    // The Verify line names CONSOLE_URL, the service's configured address, not the request's Host, which a proxy or client sets.
    const about = { incident: await this.incidents.find(caller, incidentId), serviceUrl: this.config.notifications.consoleUrl };
    const markdown = renderTimelineMarkdown(incidentId, events.map((e) => e.shown.entry), new Date().toISOString(), exported.head, about);
    return { body: markdown, contentType: MARKDOWN_CONTENT_TYPE };
  }
}
