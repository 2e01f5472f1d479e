import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, apiDocs } from '../http/api-docs.decorators';

/** The OpenAPI declaration of the postmortem route; the controller only routes. */
export const PostmortemApiDocs = {
  controller: apiDocs(ApiTags('postmortem')),

  postmortem: apiDocs(
    ApiOperation({
      summary: 'A postmortem draft in Markdown, from the ledger as the caller may see it (as the Markdown export); needs timeline.exporter',
      description:
        'Sections: `# Postmortem: <title>`, `## Summary` (record times, time to acknowledge and to resolve), `## Responders` (RACI roles, who was paged), ' +
        '`## Timeline` (one line per event, UTC, oldest first), `## Contributing factors` and `## Action items` (for the team), then the signed head and how to verify it. ' +
        'Events are withheld and redacted exactly as in the Markdown export; an unknown or withheld incident is 404.',
    }),
    ApiResponse({ status: 200, description: 'The draft', content: { 'text/markdown': { schema: { type: 'string' } } } }),
    ApiErrors(404),
  ),
};
