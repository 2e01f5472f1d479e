import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  HEARTBEAT_INTERVAL_SECONDS,
  HEARTBEAT_STATUSES,
  ONCALL_NAME_MAX_LENGTH,
  POLICY_REPEAT,
  ROTATION_EVERY,
  ROTATION_UNITS,
  SERVICE_DESCRIPTION_MAX_LENGTH,
  STEP_DELAY_SECONDS,
  TARGET_TYPES,
  WEEKDAYS,
} from '@im/incidents';
import { TIMESTAMP_RULE } from '@im/cloudevents';
import { ApiErrors, apiDocs } from '../http/api-docs.decorators';
import { MAX_SHIFT_WINDOW_DAYS } from './schedule-window.query';

/** The OpenAPI declaration of each on-call route (services, escalation policies, schedules); the controllers only route. */

const ID = { type: 'string', example: '3f9c2a7e5b1d8c04' };
const NAME = { type: 'string', minLength: 1, maxLength: ONCALL_NAME_MAX_LENGTH };
const TIME = { type: 'string', format: 'date-time' };
const ADMIN = 'needs oncall.admin';
const idParam = (name = 'id') => ApiParam({ name, schema: { type: 'string' } });
const itemsOf = (item: object) => ({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: item } } });

const SERVICE_BODY = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { ...NAME, description: 'Unique, whatever its case', example: 'Checkout' },
    description: { type: 'string', nullable: true, maxLength: SERVICE_DESCRIPTION_MAX_LENGTH },
    escalation_policy_id: { type: 'string', nullable: true, description: 'An existing escalation policy (else 400)' },
  },
};
const SERVICE = {
  type: 'object',
  required: ['id', 'name', 'description', 'escalation_policy_id', 'created_at'],
  properties: { id: ID, name: NAME, description: { type: 'string', nullable: true }, escalation_policy_id: { type: 'string', nullable: true }, created_at: TIME },
};

const STEPS = {
  type: 'array',
  minItems: 1,
  items: {
    type: 'object',
    required: ['delay_seconds', 'targets'],
    properties: {
      delay_seconds: { type: 'integer', minimum: STEP_DELAY_SECONDS.min, maximum: STEP_DELAY_SECONDS.max, description: 'How long the step waits for an acknowledgement before the next' },
      targets: {
        type: 'array',
        minItems: 1,
        items: { type: 'object', required: ['type', 'id'], properties: { type: { type: 'string', enum: [...TARGET_TYPES] }, id: { type: 'string', description: "A user's sub, or an existing schedule's id" } } },
      },
    },
  },
};
const REPEAT = { type: 'integer', minimum: POLICY_REPEAT.min, maximum: POLICY_REPEAT.max, default: 0, description: 'How often the policy starts again from step 1' };
const POLICY_BODY = { type: 'object', required: ['name', 'steps'], properties: { name: NAME, steps: STEPS, repeat: REPEAT } };
const POLICY = { type: 'object', required: ['id', 'name', 'steps', 'repeat'], properties: { id: ID, name: NAME, steps: STEPS, repeat: REPEAT } };

const HH_MM = { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', example: '09:00' };
const LAYERS = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'start', 'rotation', 'users'],
    properties: {
      name: NAME,
      start: { ...TIME, description: 'The first hand-off; before it the layer has no one' },
      rotation: {
        type: 'object',
        required: ['every', 'unit'],
        properties: { every: { type: 'integer', minimum: ROTATION_EVERY.min, maximum: ROTATION_EVERY.max }, unit: { type: 'string', enum: [...ROTATION_UNITS], description: 'days and weeks are calendar days in the zone' } },
      },
      users: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'Subs, in rotation order' },
      restrictions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['days', 'from', 'to'],
          properties: { days: { type: 'array', minItems: 1, items: { type: 'string', enum: [...WEEKDAYS] } }, from: HH_MM, to: { ...HH_MM, description: 'Earlier than from: runs past midnight' } },
        },
      },
    },
  },
};
const TIME_ZONE = { type: 'string', description: 'An IANA name (kept by its canonical spelling)', example: 'Europe/Berlin' };
const SCHEDULE_BODY = { type: 'object', required: ['name', 'time_zone', 'layers'], properties: { name: NAME, time_zone: TIME_ZONE, layers: LAYERS } };
const OVERRIDE_BODY = { type: 'object', required: ['user', 'start', 'end'], properties: { user: { type: 'string', description: 'Who takes the shift (a sub)' }, start: TIME, end: { ...TIME, description: 'After start' } } };
const OVERRIDE = { type: 'object', required: ['id', 'user', 'start', 'end', 'created_at'], properties: { id: ID, ...OVERRIDE_BODY.properties, created_at: TIME } };
const SCHEDULE = {
  type: 'object',
  required: ['id', 'name', 'time_zone', 'layers', 'overrides'],
  properties: { id: ID, name: NAME, time_zone: TIME_ZONE, layers: LAYERS, overrides: { type: 'array', items: OVERRIDE, description: 'In creation order, past ones too' } },
};
const ON_CALL = { type: 'object', required: ['schedule_id', 'at', 'user'], properties: { schedule_id: ID, at: TIME, user: { type: 'string', nullable: true, description: 'null: no one' } } };
const SHIFTS = {
  type: 'object',
  required: ['shifts'],
  properties: { shifts: { type: 'array', items: { type: 'object', required: ['user', 'start', 'end'], properties: { user: { type: 'string' }, start: TIME, end: TIME } } } },
};

export const ServicesApiDocs = {
  controller: apiDocs(ApiTags('on call')),
  create: apiDocs(ApiOperation({ summary: `Create a service; ${ADMIN}` }), ApiBody({ schema: SERVICE_BODY }), ApiResponse({ status: 201, description: 'The service', schema: SERVICE }), ApiErrors(400, 409, 413, 415)),
  list: apiDocs(ApiOperation({ summary: 'Every service, oldest first' }), ApiResponse({ status: 200, description: 'The services', schema: itemsOf(SERVICE) })),
  get: apiDocs(ApiOperation({ summary: 'One service' }), idParam(), ApiResponse({ status: 200, description: 'The service', schema: SERVICE }), ApiErrors(404)),
  update: apiDocs(
    ApiOperation({ summary: `Replace a service's name, description and escalation policy; ${ADMIN}` }),
    idParam(),
    ApiBody({ schema: SERVICE_BODY }),
    ApiResponse({ status: 200, description: 'The service', schema: SERVICE }),
    ApiErrors(400, 404, 409, 413, 415),
  ),
  remove: apiDocs(ApiOperation({ summary: `Delete a service (409 while an unresolved incident belongs to it); ${ADMIN}` }), idParam(), ApiResponse({ status: 204, description: 'Deleted' }), ApiErrors(404, 409)),
};

export const EscalationPoliciesApiDocs = {
  controller: apiDocs(ApiTags('on call')),
  create: apiDocs(ApiOperation({ summary: `Create an escalation policy; ${ADMIN}` }), ApiBody({ schema: POLICY_BODY }), ApiResponse({ status: 201, description: 'The policy', schema: POLICY }), ApiErrors(400, 413, 415)),
  list: apiDocs(ApiOperation({ summary: 'Every escalation policy, oldest first' }), ApiResponse({ status: 200, description: 'The policies', schema: itemsOf(POLICY) })),
  get: apiDocs(ApiOperation({ summary: 'One escalation policy' }), idParam(), ApiResponse({ status: 200, description: 'The policy', schema: POLICY }), ApiErrors(404)),
  update: apiDocs(
    ApiOperation({ summary: `Replace an escalation policy's name, steps and repeat; ${ADMIN}` }),
    idParam(),
    ApiBody({ schema: POLICY_BODY }),
    ApiResponse({ status: 200, description: 'The policy', schema: POLICY }),
    ApiErrors(400, 404, 413, 415),
  ),
  remove: apiDocs(ApiOperation({ summary: `Delete an escalation policy (409 while a service names it); ${ADMIN}` }), idParam(), ApiResponse({ status: 204, description: 'Deleted' }), ApiErrors(404, 409)),
};

export const SchedulesApiDocs = {
  controller: apiDocs(ApiTags('on call')),
  create: apiDocs(ApiOperation({ summary: `Create a schedule; ${ADMIN}` }), ApiBody({ schema: SCHEDULE_BODY }), ApiResponse({ status: 201, description: 'The schedule', schema: SCHEDULE }), ApiErrors(400, 413, 415)),
  list: apiDocs(ApiOperation({ summary: 'Every schedule with its overrides, oldest first' }), ApiResponse({ status: 200, description: 'The schedules', schema: itemsOf(SCHEDULE) })),
  get: apiDocs(ApiOperation({ summary: 'One schedule with its overrides' }), idParam(), ApiResponse({ status: 200, description: 'The schedule', schema: SCHEDULE }), ApiErrors(404)),
  update: apiDocs(
    ApiOperation({ summary: `Replace a schedule's name, zone and layers (its overrides stay); ${ADMIN}` }),
    idParam(),
    ApiBody({ schema: SCHEDULE_BODY }),
    ApiResponse({ status: 200, description: 'The schedule', schema: SCHEDULE }),
    ApiErrors(400, 404, 413, 415),
  ),
  remove: apiDocs(ApiOperation({ summary: `Delete a schedule (409 while an escalation policy names it); ${ADMIN}` }), idParam(), ApiResponse({ status: 204, description: 'Deleted' }), ApiErrors(404, 409)),
  createOverride: apiDocs(
    ApiOperation({ summary: 'Hand a stretch of the schedule to a user: oncall.admin for anyone, anyone for themself' }),
    idParam(),
    ApiBody({ schema: OVERRIDE_BODY }),
    ApiResponse({ status: 201, description: 'The override', schema: OVERRIDE }),
    ApiErrors(400, 403, 404, 413, 415),
  ),
  removeOverride: apiDocs(
    ApiOperation({ summary: "Delete an override: oncall.admin for anyone's, anyone for their own" }),
    idParam(),
    idParam('override_id'),
    ApiResponse({ status: 204, description: 'Deleted' }),
    ApiErrors(403, 404),
  ),
  onCall: apiDocs(
    ApiOperation({ summary: 'Who is on call at a time (now by default)' }),
    idParam(),
    ApiQuery({ name: 'at', required: false, schema: { type: 'string', format: 'date-time' }, description: TIMESTAMP_RULE }),
    ApiResponse({ status: 200, description: 'Who is on call', schema: ON_CALL }),
    ApiErrors(400, 404),
  ),
  shifts: apiDocs(
    ApiOperation({ summary: `The final schedule over a window (from now and a week on by default; at most ${MAX_SHIFT_WINDOW_DAYS} days): one entry per uninterrupted stretch of one user` }),
    idParam(),
    ApiQuery({ name: 'from', required: false, schema: { type: 'string', format: 'date-time' } }),
    ApiQuery({ name: 'to', required: false, schema: { type: 'string', format: 'date-time' } }),
    ApiResponse({ status: 200, description: 'The shifts, in time order', schema: SHIFTS }),
    ApiErrors(400, 404),
  ),
};

const HEARTBEAT_BODY = {
  type: 'object',
  required: ['name', 'interval_seconds', 'service_id'],
  properties: {
    name: { ...NAME, example: 'Prometheus watchdog' },
    interval_seconds: { type: 'integer', minimum: HEARTBEAT_INTERVAL_SECONDS.min, maximum: HEARTBEAT_INTERVAL_SECONDS.max, description: 'Overdue once this long passes without a ping' },
    service_id: { type: 'string', description: 'An existing service (else 400): a missed heartbeat opens an incident of it' },
  },
};
const HEARTBEAT = {
  type: 'object',
  required: ['id', 'name', 'interval_seconds', 'service_id', 'last_ping_at', 'status'],
  properties: {
    id: ID,
    ...HEARTBEAT_BODY.properties,
    last_ping_at: { ...TIME, nullable: true, description: 'null before the first ping' },
    status: { type: 'string', enum: [...HEARTBEAT_STATUSES], description: 'waiting: no ping yet; overdue: interval_seconds passed without a ping' },
  },
};

export const HeartbeatsApiDocs = {
  controller: apiDocs(ApiTags('on call')),
  create: apiDocs(ApiOperation({ summary: `Create a heartbeat of a service; ${ADMIN}` }), ApiBody({ schema: HEARTBEAT_BODY }), ApiResponse({ status: 201, description: 'The heartbeat', schema: HEARTBEAT }), ApiErrors(400, 413, 415)),
  list: apiDocs(ApiOperation({ summary: 'Every heartbeat, oldest first, with its status now' }), ApiResponse({ status: 200, description: 'The heartbeats', schema: itemsOf(HEARTBEAT) })),
  get: apiDocs(ApiOperation({ summary: 'One heartbeat, with its status now' }), idParam(), ApiResponse({ status: 200, description: 'The heartbeat', schema: HEARTBEAT }), ApiErrors(404)),
  remove: apiDocs(ApiOperation({ summary: `Delete a heartbeat; ${ADMIN}` }), idParam(), ApiResponse({ status: 204, description: 'Deleted' }), ApiErrors(404)),
  ping: apiDocs(
    ApiOperation({
      summary:
        'Ping a heartbeat: with an integration key of its service, or oncall.admin. Any JSON body or none; an Alertmanager (or Grafana) payload whose status is resolved is not a ping (200)',
    }),
    idParam(),
    ApiBody({ required: false, schema: { type: 'object', description: 'Ignored, except an alert payload with status resolved' } }),
    ApiResponse({ status: 202, description: 'Pinged: the heartbeat as it stands now (a firing alert of a missed deadline is resolved)', schema: HEARTBEAT }),
    ApiResponse({ status: 200, description: 'Not a ping (a resolved alert payload): the heartbeat, unchanged', schema: HEARTBEAT }),
    ApiErrors(400, 403, 404, 413, 415),
  ),
};
