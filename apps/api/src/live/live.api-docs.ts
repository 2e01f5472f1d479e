import { ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, apiDocs } from '../http/api-docs.decorators';

/** The OpenAPI declaration of the live streams; the contract in full is in docs/api.md. */

const RESUME = [
  ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    schema: { type: 'string' },
    description: 'The id of the last event received: the stream replays what followed it, then goes on live. Wins over `after`.',
  }),
  ApiQuery({ name: 'after', required: false, type: String, description: 'As Last-Event-ID, for clients that cannot set headers on reconnect' }),
];

const eventStream = (description: string) =>
  ApiResponse({ status: 200, description, content: { 'text/event-stream': { schema: { type: 'string', description: 'Server-sent events (WHATWG HTML, section 9.2)' } } } });

export const LiveApiDocs = {
  controller: apiDocs(ApiTags('live'), ApiErrors(503)),

  timelineStream: apiDocs(
    ApiOperation({
      summary: "An incident's timeline as server-sent events, live and resumable; needs timeline.reader",
      description:
        'Each event the caller may see, redacted as a read would show it: `id: <cursor>`, `event: timeline`, `data: <the timeline event as read>`. ' +
        'Without Last-Event-ID or `after`, only events appended after the stream opened. A comment line at least every 15 s. ' +
        'If the policy decision point becomes unavailable, `event: error` with `{error, status: 503}`, then the stream closes; ' +
        'when the bearer token expires, `event: error` with `{error, status: 401}`, then it closes (reconnect with a fresh token and Last-Event-ID).',
    }),
    ...RESUME,
    eventStream('`timeline` events; `error` before the stream closes on a failure'),
    ApiErrors(400, 404),
  ),

  incidentStream: apiDocs(
    ApiOperation({
      summary: 'Every change of an incident the caller may see, as server-sent events, live and resumable',
      description:
        '`id: <cursor>`, `event: incident`, `data: <the incident, as GET /api/v1/incidents/{id} answers once the change is applied>`. ' +
        'Only an event that changes the incident sends it; one that leaves it as it was (a note, for one) sends nothing. ' +
        'When the bearer token expires, `event: error` with `{error, status: 401}`, then the stream closes.',
    }),
    ...RESUME,
    eventStream('`incident` events; `error` before the stream closes on a failure'),
    ApiErrors(400),
  ),
};
