import { ApiBody, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { SEVERITIES, STATUSES } from '@im/incidents';
import { ApiErrors, apiDocs, errorResponse, ref } from '../http/api-docs.decorators';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from './incident-list.query';

/** The OpenAPI declaration of each incident route; the controller only routes. */

const STATUS_ANSWER = (status: string) => ({ type: 'object', required: ['status'], properties: { status: { type: 'string', example: status } } });

/** A lifecycle move: POST /api/v1/incidents/:id/<move>, answering the status it leads to. */
const lifecycleMove = (move: string, status: string) =>
  apiDocs(
    ApiOperation({ summary: `${move} (lifecycle table in docs/api.md); a repeat is 200 with no change` }),
    ApiResponse({ status: 200, description: 'The status now', schema: STATUS_ANSWER(status) }),
    ApiErrors(404, 409),
  );

export const IncidentsApiDocs = {
  controller: apiDocs(ApiTags('incidents')),

  create: apiDocs(
    ApiOperation({ summary: 'Declare an incident (open); answers with it and a Location header' }),
    ApiBody({ schema: ref('CreateIncident') }),
    ApiResponse({
      status: 201,
      description: 'The new incident',
      schema: ref('Incident'),
      headers: { Location: { description: 'The path of the new incident', schema: { type: 'string' } } },
    }),
    ApiResponse({ status: 403, ...errorResponse("visibility ranks above the caller's clearance") }),
    ApiErrors(400, 413, 415),
  ),

  list: apiDocs(
    ApiOperation({ summary: 'Incidents, newest first; Link rel="next" when more exist' }),
    ApiQuery({ name: 'status', required: false, type: String, description: `Comma-separated: ${STATUSES.join(', ')}` }),
    ApiQuery({ name: 'severity', required: false, type: String, description: `Comma-separated: ${SEVERITIES[0]} … ${SEVERITIES[SEVERITIES.length - 1]}` }),
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT } }),
    ApiQuery({ name: 'cursor', required: false, type: String, description: 'From the Link header of the previous page' }),
    ApiResponse({
      status: 200,
      description: 'A page of incidents',
      schema: { type: 'array', items: ref('Incident') },
      headers: { Link: { description: 'The next page, as <path?query>; rel="next"; absent on the last page', schema: { type: 'string' } } },
    }),
    ApiErrors(400),
  ),

  get: apiDocs(ApiOperation({ summary: 'One incident' }), ApiResponse({ status: 200, description: 'The incident', schema: ref('Incident') }), ApiErrors(404)),

  ack: lifecycleMove('Ack', 'acknowledged'),
  mitigate: lifecycleMove('Mitigate', 'mitigated'),
  resolve: lifecycleMove('Resolve', 'resolved'),
  close: lifecycleMove('Close', 'closed'),
  cancel: lifecycleMove('Cancel', 'canceled'),
  escalate: apiDocs(
    ApiOperation({ summary: 'Page the next step of the escalation policy now (reason manual), while open or acknowledged; the status stays' }),
    ApiResponse({ status: 200, description: 'The incident', schema: ref('Incident') }),
    ApiResponse({ status: 409, ...errorResponse('Not open or acknowledged, no escalation policy, or no step left and no repeat') }),
    ApiErrors(404),
  ),
  duplicate: apiDocs(
    ApiOperation({
      summary:
        "Mark a duplicate of `of` (from open, acknowledged or mitigated; ends paging, and the fingerprint's alerts go to `of`); the same `of` again is 200 with no change",
    }),
    ApiBody({
      schema: { type: 'object', required: ['of'], properties: { of: { type: 'string', example: 'INC-0000abcd', description: 'The incident this one duplicates: not this one, neither canceled nor a duplicate' } } },
    }),
    ApiResponse({
      status: 200,
      description: 'The status now, and the incident it duplicates',
      schema: { type: 'object', required: ['status', 'duplicate_of'], properties: { status: { type: 'string', example: 'duplicate' }, duplicate_of: { type: 'string', example: 'INC-0000abcd' } } },
    }),
    ApiResponse({ status: 404, ...errorResponse('The incident, or the one `of` names, does not exist or is withheld from the caller') }),
    ApiResponse({ status: 409, ...errorResponse('The incident is past mitigated, canceled or a duplicate of another; `of` is itself, canceled or a duplicate') }),
    ApiErrors(400, 413, 415),
  ),
};
