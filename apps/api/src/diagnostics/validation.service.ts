import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig, DEVELOPMENT_JWT_SECRET } from '@im/config';
import { SERVICE_SOURCE } from '@im/cloudevents';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { diagnosticsStreamId, PROBE_EVENT_TYPE } from '@im/incidents';
import { checkIntegrity, embeddedStoreFiles, freeSpace, postgresSchemas, type SchemaStatus } from '@im/persistence';
import { PDP, type PolicyDecisionPoint } from '@im/policy';
import {
  LEASE_STORE,
  type LeaseStore,
  probeProjection,
  PROJECTION_PROGRESS,
  PROJECTION_STORE,
  PROJECTION_WORKER,
  type ProjectionProgress,
  type ProjectionStore,
  type ProjectionWorker,
} from '@im/read-models';
import { version } from '../../../../package.json';
import { GRAPHQL_PATH } from '../graphql/graphql-path';
import { IncidentQueryService, type Principal, TIMELINE_ROLES } from '@im/access';
import { demandRole } from '../auth/auth.guard';
import { describeRewrite } from '../ledger-proof/chain-continuity';
import { LedgerContinuity } from '../ledger-proof/ledger-continuity';
import { GraphqlWsServer } from '../graphql/graphql-ws.server';
import { SUBSCRIPTION_ROLES } from '../graphql/subscription-access';
import { LEASE_NAMES, leaseViews } from '../leases/leases.view';

export type CheckStatus = 'pass' | 'fail' | 'warn';

export interface CheckResult {
  component: string;
  check: string;
  status: CheckStatus;
  message: string;
  duration: string;
}

export interface ValidationReport {
  timestamp: string;
  version: string;
  capabilities: { database: boolean; timeline: boolean; websocket: boolean; sse: boolean; graphql: boolean };
  results: CheckResult[];
  summary: { total: number; passed: number; failed: number; warned: number };
}

/** How long the self-test waits for the read models to show its probe: PROJECTION_WAIT_MS's default, so a pass means a write would be answered in time. */
const SELF_TEST_WAIT_MS = 5000;
/** Faults named one by one in the validate message; the rest are counted. */
const SHOWN_FAULTS = 5;
/** Below this much free space the data volume fails validation: an append may need several MiB (a WAL checkpoint grows the database). */
const FULL_BELOW_BYTES = 8 * 1024 * 1024;
/** ...and is worth a warning below this. */
const LOW_BELOW_BYTES = 256 * 1024 * 1024;
/** The JWKS check's own bound: validate answers in seconds whatever the key server does; token verification has its own (jwt.strategy.ts). */
const JWKS_CHECK_TIMEOUT_MS = 2000;
const MiB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

type Check = [component: string, check: string, run: () => Promise<string>];

/** A check returns its message (pass), or throws (fail); Warning is a pass worth a look. */
class Warning extends Error {}

/** GET /api/v1/validate: real checks of every part the service needs, each timed. */
@Injectable()
export class ValidationService {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(PROJECTION_STORE) private readonly readStore: ProjectionStore,
    @Inject(LEASE_STORE) private readonly leases: LeaseStore,
    @Inject(PDP) private readonly pdp: PolicyDecisionPoint,
    @Inject(PROJECTION_PROGRESS) private readonly projections: ProjectionProgress,
    // Null where apps/projector runs the projections: the lag is measured there.
    @Inject(PROJECTION_WORKER) private readonly worker: ProjectionWorker | null,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly modules: ModuleRef,
  ) {}

  async validate(selfTest: boolean, caller: Principal): Promise<ValidationReport> {
    // The self-test appends a probe event, as a writer would.
    if (selfTest) demandRole(caller, TIMELINE_ROLES.writer);
    const checks: Check[] = [
      ['event_store', 'reachable', async () => `head at position ${await this.eventStore.headPosition()}`],
      ['event_store', 'writable', async () => (await this.eventStore.checkWritable(), 'takes writes')],
      ['ledger', 'continuity', () => this.ledgerContinuity(caller)],
      ['read_store', 'reachable', async () => `incidents checkpoint at ${await this.readStore.checkpoint('incidents')}`],
      ['projections', 'lag', () => this.projectionLag()],
      ['projections', 'faults', () => this.projectionFaults()],
      ['policy', 'decision_point', () => this.policyReachable()],
      ['auth', 'jwt_configuration', () => this.jwtConfiguration()],
      ['graphql', 'schema', async () => this.graphqlSchema()],
      ['websocket', 'graphql_transport_ws', async () => this.graphqlSubscriptions()],
      ...this.storageChecks(),
      ...this.databaseChecks(),
      ...this.leaseChecks(),
    ];
    if (selfTest) checks.push(['self_test', 'round_trip', () => this.roundTrip()]);
    const results: CheckResult[] = [];
    for (const [component, check, run] of checks) results.push(await timed(component, check, run));
    const passedNamed = (component: string) => results.filter((r) => r.component === component).every((r) => r.status !== 'fail');
    return {
      timestamp: new Date().toISOString(),
      version,
      capabilities: {
        database: passedNamed('event_store') && passedNamed('read_store') && passedNamed('storage') && passedNamed('database'),
        timeline: passedNamed('event_store') && passedNamed('read_store'),
        // The live streams are the ledger followed and the read models read: up when those are.
        sse: passedNamed('event_store') && passedNamed('read_store'),
        // GraphQL subscriptions: the same, delivered through the socket server.
        websocket: passedNamed('websocket') && passedNamed('event_store') && passedNamed('read_store'),
        graphql: passedNamed('graphql'),
      },
      results,
      summary: {
        total: results.length,
        passed: results.filter((r) => r.status === 'pass').length,
        failed: results.filter((r) => r.status === 'fail').length,
        warned: results.filter((r) => r.status === 'warn').length,
      },
    };
  }

  /** Each incident's chains recomputed from where they were last verified: they must extend every head signed and verified before. */
  private async ledgerContinuity(caller: Principal): Promise<string> {
    const continuity = this.modules.get(LedgerContinuity, { strict: false });
    const read = continuity.eventsRead;
    // A store that cannot be read fails its own checks; here it only means the chains were not checked.
    const rewrites = await continuity.checkAll().catch((error: unknown) => {
      throw new Warning(`not checked: the event store could not be read (${(error as Error).message})`);
    });
    if (rewrites.length > 0) {
      // Validate answers anyone: an incident withheld from the caller is counted, never named (the start log names every one).
      const withheld = await this.modules.get(IncidentQueryService, { strict: false }).withheld(caller, [...new Set(rewrites.map((r) => r.incidentId))]);
      const named = rewrites.filter((r) => !withheld.has(r.incidentId));
      const unnamed = rewrites.length - named.length;
      const more = named.length > SHOWN_FAULTS ? `; and ${named.length - SHOWN_FAULTS} more` : '';
      const hidden = unnamed > 0 ? `${named.length > 0 ? '; and ' : ''}${unnamed} of incidents withheld from you` : '';
      throw new Error(`${rewrites.length} chain(s) rewritten after they were verified or signed: ${named.slice(0, SHOWN_FAULTS).map(describeRewrite).join('; ')}${more}${hidden}. No head is signed for them; restore the event store from a backup`);
    }
    return `every incident's chains extend what was verified and signed before (${continuity.eventsRead - read} event(s) read since the last check)`;
  }

  /** The embedded stores' files (SQLite's quick_check of each) and the room left for them. */
  private storageChecks(): Check[] {
    const files = embeddedStoreFiles(this.config);
    if (files.length === 0) return [];
    return [
      ...files.map((store): Check => [store.component, 'integrity', () => checkIntegrity(store)]),
      ['storage', 'free_space', () => this.freeSpace()],
    ];
  }

  /** The PostgreSQL database the stores are kept in: the server answers through each, and has every migration this build knows. */
  private databaseChecks(): Check[] {
    const schemas = postgresSchemas(this.eventStore, this.readStore);
    if (schemas.length === 0) return [];
    const statuses = () => Promise.all(schemas.map((status) => status()));
    return [
      ['database', 'reachable', async () => describeServers(await statuses())],
      ['database', 'migrations', async () => describeMigrations(await statuses())],
    ];
  }

  /** One check per lease, on every backend: which process runs that work now, as GET /api/v1/leases shows it. */
  private leaseChecks(): Check[] {
    // One read of the leases for all their checks.
    let listed: ReturnType<LeaseStore['list']> | undefined;
    return LEASE_NAMES.map((name): Check => [
      'leases',
      name,
      async () => {
        const [{ holder, since, generation }] = leaseViews([name], await (listed ??= this.leases.list()));
        if (!holder) throw new Warning(`no holder (generation ${generation}): its work runs nowhere until a process takes the lease`);
        return `held by ${holder.kind} pid ${holder.pid} on ${holder.host} since ${since}, generation ${generation}`;
      },
    ]);
  }

  private async freeSpace(): Promise<string> {
    const { available, total } = await freeSpace(this.config.dataDir);
    const room = `${MiB(available)} free of ${MiB(total)} on the data directory's volume`;
    if (available < FULL_BELOW_BYTES) throw new Error(`full: ${room}; appends answer 507 until space is freed`);
    if (available < LOW_BELOW_BYTES) throw new Warning(`low: ${room}`);
    return room;
  }

  private async projectionLag(): Promise<string> {
    const head = await this.eventStore.headPosition();
    const applied = await this.projections.appliedPosition();
    const lag = this.worker?.recentLag();
    const recent = lag ? `; lag from ledger to read models over the last ${lag.events} events: p50 ${lag.p50Ms} ms, p99 ${lag.p99Ms} ms, max ${lag.maxMs} ms` : '';
    const bulk = this.worker?.catchUpProgress();
    if (bulk) {
      const seconds = (Date.now() - bulk.startedAt) / 1000;
      const done = Number(bulk.applied - bulk.from);
      const total = Number(head - bulk.from);
      throw new Warning(
        `catching up: ${bulk.projections.join(', ')} in bulk (indexes built at the end, their queries answer 503 until then): ` +
          `${done} of ${total} events (${total > 0 ? Math.floor((100 * done) / total) : 100}%) in ${seconds.toFixed(0)} s, ` +
          `${seconds > 0 ? Math.round(done / seconds) : 0} events/s; applied position ${applied}, head of the log at ${head}`,
      );
    }
    if (applied < head) throw new Warning(`behind: applied position ${applied}, head of the log at ${head}${recent}`);
    return `caught up with the head of the log (position ${head})${recent}`;
  }

  /** Events a projection skipped: in the ledger, missing from a read model until the cause is fixed and the read models rebuilt. */
  private async projectionFaults(): Promise<string> {
    const faults = await this.readStore.projectionFaults();
    if (faults.length === 0) return 'every event of the log folded into every read model';
    const named = faults
      .slice(0, SHOWN_FAULTS)
      .map((f) => `${f.projection} skipped event ${f.eventId} (position ${f.position}, stream ${f.streamId}, first seen ${f.firstSeen}, last seen ${f.lastSeen}): ${f.error}`);
    const more = faults.length > SHOWN_FAULTS ? `; and ${faults.length - SHOWN_FAULTS} more` : '';
    throw new Error(`${faults.length} event(s) could not be projected: ${named.join('; ')}${more}. Fix the cause, then run "npm run projections:rebuild"`);
  }

  private async policyReachable(): Promise<string> {
    await this.pdp.ping();
    const [decision] = await this.pdp.decide({
      subject: { sub: 'diagnostics', roles: ['timeline.reader'], clearance: 'public', data_access: [] },
      action: 'timeline.read',
      resources: [{ visibility: 'public', data_class: [] }],
    });
    if (!decision?.visible) throw new Error('answers, but denies a public event to a reader: check the policy');
    return `${this.config.policy.mode} PDP answers`;
  }

  private async jwtConfiguration(): Promise<string> {
    const { jwt } = this.config;
    if (jwt.kind === 'jwks') {
      const response = await fetch(jwt.jwksUrl, { signal: AbortSignal.timeout(JWKS_CHECK_TIMEOUT_MS) });
      const keys = response.ok ? ((await response.json()) as { keys?: unknown[] }).keys : undefined;
      if (!Array.isArray(keys) || keys.length === 0) throw new Error(`JWKS at ${jwt.jwksUrl} has no keys (HTTP ${response.status})`);
      return `RS256/ES256 with ${keys.length} published key(s)`;
    }
    // Development only (production refuses it at start), whether JWT_SECRET is unset or names it.
    if (jwt.secret === DEVELOPMENT_JWT_SECRET) throw new Warning('HS256 with the development secret, which is published in the source: set JWT_SECRET to a secret of your own');
    return 'HS256 with JWT_SECRET';
  }

  private graphqlSchema(): string {
    const { schema } = this.modules.get(GraphQLSchemaHost, { strict: false });
    const queries = Object.keys(schema.getQueryType()?.getFields() ?? {}).length;
    const mutations = Object.keys(schema.getMutationType()?.getFields() ?? {}).length;
    if (queries === 0) throw new Error('schema has no queries');
    return `${queries} queries, ${mutations} mutations`;
  }

  /** The socket server takes upgrades at the GraphQL path, and the schema serves the subscriptions of docs/api.md. */
  private graphqlSubscriptions(): string {
    const { accepting, open } = this.modules.get(GraphqlWsServer, { strict: false }).status();
    if (!accepting) throw new Error(`no WebSocket server is taking upgrades at ${GRAPHQL_PATH}`);
    const { schema } = this.modules.get(GraphQLSchemaHost, { strict: false });
    const served = Object.keys(schema.getSubscriptionType()?.getFields() ?? {});
    const missing = Object.keys(SUBSCRIPTION_ROLES).filter((field) => !served.includes(field));
    if (missing.length > 0) throw new Error(`the schema lacks the subscriptions ${missing.join(', ')}`);
    return `graphql-transport-ws at ${GRAPHQL_PATH}: ${served.join(', ')}; ${open} socket(s) open`;
  }

  /** Append a probe on a scratch stream, see it projected, read it back through the policy. No user-facing view shows it. */
  private async roundTrip(): Promise<string> {
    const id = randomUUID();
    const { position } = await this.eventStore.append(
      diagnosticsStreamId(id),
      [{ specversion: '1.0', id, source: SERVICE_SOURCE, type: PROBE_EVENT_TYPE, time: new Date().toISOString() }],
      'no_stream',
    );
    await this.projections.waitFor(position, SELF_TEST_WAIT_MS);
    const stored = await this.readStore.load(probeProjection.name, [id]);
    if (!stored.has(id)) throw new Error(`probe ${id} was appended but not projected`);
    const [decision] = await this.pdp.decide({
      subject: { sub: 'diagnostics', roles: ['timeline.reader'], clearance: 'internal', data_access: [] },
      action: 'timeline.read',
      resources: [{ visibility: 'internal', data_class: [] }],
    });
    if (!decision?.visible) throw new Error('probe projected, but the policy withheld it from a reader');
    return `appended at position ${position}, projected, read back through the policy`;
  }
}

/** The servers that answered (one when both stores share POSTGRES_URL's database). */
function describeServers(statuses: SchemaStatus[]): string {
  const servers = new Map<string, string[]>();
  for (const { server, component } of statuses) {
    const key = `PostgreSQL ${server.version}, database ${server.database}`;
    servers.set(key, [...(servers.get(key) ?? []), component]);
  }
  return [...servers].map(([server, components]) => `${server} answers (${components.join(', ')})`).join('; ');
}

/**
 * Fails when the database lacks a migration this build knows (its tables may
 * be missing: each process applies them at start, so one was changed by hand);
 * warns when it has some this build does not (a newer version runs on it).
 */
function describeMigrations(statuses: SchemaStatus[]): string {
  const missing = statuses.filter((s) => s.pending.length > 0);
  if (missing.length > 0) {
    const named = missing.map((s) => `${s.component} lacks ${s.pending.map((m) => `${m.version} (${m.name})`).join(', ')}`);
    throw new Error(`${named.join('; ')}: schema_migrations does not record them. A process of this version applies them at its start; if their tables exist already, the record was removed by hand`);
  }
  const current = statuses.map((s) => `${s.component} at ${s.known} of ${s.known}`).join(', ');
  const ahead = statuses.filter((s) => s.newer.length > 0);
  if (ahead.length > 0) {
    throw new Warning(`${current}; ${ahead.map((s) => `${s.component} also has ${s.newer.join(', ')}`).join('; ')}, which this version does not know: a newer version migrated the database; upgrade this process`);
  }
  return `migrations current: ${current}`;
}

async function timed(component: string, check: string, run: () => Promise<string>): Promise<CheckResult> {
  const started = process.hrtime.bigint();
  let status: CheckStatus = 'pass';
  let message: string;
  try {
    message = await run();
  } catch (error) {
    status = error instanceof Warning ? 'warn' : 'fail';
    message = (error as Error).message;
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { component, check, status, message, duration: `${ms.toFixed(2)}ms` };
}
