import { Inject } from '@nestjs/common';
import { Args, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { VISIBILITIES } from '@im/cloudevents';
import { InvalidError, incidentNotFound, type Incident as DomainIncident } from '@im/incidents';
import { READ_STORE, type ReadStore } from '@im/read-models';
import type { Principal } from '../auth/principal';
import { IncidentCommandHandler } from '../incidents/incident-command.handler';
import { TimelineReader } from '../timeline/timeline-reader.service';
import { type GqlContext, GqlIncidents, GqlPrincipal } from './graphql-context';
import { quickActions } from './quick-actions';
import { fromGqlSeverity, fromGqlStatus, toGqlIncident, toGqlSeverity, toGqlStatus, toGqlSummary } from './schema.mapping';
import {
  DeclareIncidentInput,
  Incident,
  IncidentMobileView,
  IncidentSummary,
  MobileAction,
  MY_INCIDENTS_DEFAULT_LIMIT,
  MY_INCIDENTS_MAX_LIMIT,
  Note,
  RACIRole,
  Severity,
  Status,
} from './schema.types';

const QUICK_TIMELINE_LENGTH = 5;
const SUMMARY_LENGTH = 140;

const shorten = (text: string) => (text.length > SUMMARY_LENGTH ? `${text.slice(0, SUMMARY_LENGTH - 1)}…` : text);

@Resolver()
export class IncidentsResolver {
  constructor(
    private readonly commands: IncidentCommandHandler,
    private readonly timeline: TimelineReader,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Query(() => [IncidentSummary], {
    description: 'Incidents where the caller holds any RACI role, newest first',
    complexity: ({ args, childComplexity }) => (args.limit ?? MY_INCIDENTS_DEFAULT_LIMIT) * childComplexity,
  })
  async myIncidents(
    @GqlPrincipal() caller: Principal,
    // `Int = 20` as interface.md has it: an explicit null means the default.
    @Args('limit', { type: () => Int, nullable: true, defaultValue: MY_INCIDENTS_DEFAULT_LIMIT }) requested: number | null,
    @Args('status', { type: () => [Status], nullable: true }) status?: Status[],
    @Args('severity', { type: () => [Severity], nullable: true }) severity?: Severity[],
  ): Promise<IncidentSummary[]> {
    const limit = requested ?? MY_INCIDENTS_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MY_INCIDENTS_MAX_LIMIT) {
      throw new InvalidError(`limit must be from 1 to ${MY_INCIDENTS_MAX_LIMIT}`);
    }
    const incidents = await this.readStore.incidents.listForUser(caller.sub, {
      limit,
      statuses: status?.map(fromGqlStatus),
      severities: severity?.map(fromGqlSeverity),
    });
    return incidents.map(toGqlSummary);
  }

  @Query(() => IncidentMobileView, { nullable: true, description: 'A compact view for a phone, with the newest events' })
  async incidentStatus(
    @Args('id', { type: () => ID }) id: string,
    @GqlPrincipal() caller: Principal,
    @GqlIncidents() incidents: GqlContext['incidents'],
  ): Promise<IncidentMobileView> {
    const incident = await this.load(incidents, id);
    const { entries } = await this.timeline.incidentTimeline(caller, id, { incidentId: id, order: 'desc', limit: QUICK_TIMELINE_LENGTH });
    const commander = incident.roles?.IC;
    return {
      id: incident.id,
      title: incident.title,
      severity: toGqlSeverity(incident.severity),
      status: toGqlStatus(incident.status),
      assignedTo: commander ? { id: commander, role: RACIRole.IC } : null,
      lastUpdate: incident.updatedAt,
      warRoomLink: this.warRoomLink(incident.id),
      quickTimeline: entries.map(({ entry }) => ({
        id: entry.id,
        type: entry.eventType,
        summary: shorten(entry.content || entry.title),
        time: new Date(entry.eventTime),
      })),
    };
  }

  @Query(() => [MobileAction], { description: 'What the caller can do on the incident now (rules in docs/decisions.md)' })
  async quickActions(
    @Args('incidentId', { type: () => ID }) incidentId: string,
    @GqlPrincipal() caller: Principal,
    @GqlIncidents() incidents: GqlContext['incidents'],
  ): Promise<MobileAction[]> {
    return quickActions(await this.load(incidents, incidentId), caller.sub, this.warRoomLink(incidentId));
  }

  @Mutation(() => Incident, { description: 'Declares an incident; the caller becomes incident commander' })
  async declareIncident(@Args('input') input: DeclareIncidentInput, @GqlPrincipal() caller: Principal): Promise<Incident> {
    if (input.visibility !== undefined && input.visibility !== null && !(VISIBILITIES as readonly string[]).includes(input.visibility)) {
      throw new InvalidError(`visibility must be one of ${VISIBILITIES.join(', ')}`);
    }
    const declared = await this.commands.declare(
      { ...input, severity: fromGqlSeverity(input.severity), commander: caller.sub },
      { actor: caller.sub, attributes: input.visibility ? { 'im.visibility': input.visibility } : undefined },
    );
    return this.read(declared.id);
  }

  @Mutation(() => Incident, { description: 'Acknowledges, following the lifecycle table' })
  async ackIncident(@Args('id', { type: () => ID }) id: string, @GqlPrincipal() caller: Principal): Promise<Incident> {
    await this.commands.transition(id, 'ack', { actor: caller.sub });
    return this.read(id);
  }

  @Mutation(() => Note)
  async addNote(
    @Args('incidentId', { type: () => ID }) incidentId: string,
    @Args('content') content: string,
    @GqlPrincipal() caller: Principal,
  ): Promise<Note> {
    const note = await this.commands.addNote(incidentId, content, { actor: caller.sub });
    return { id: note.id, content: String(note.data?.content), createdAt: new Date(note.time) };
  }

  @Mutation(() => Incident, { description: 'Only the incident commander may assign (anyone while there is none)' })
  async assignRole(
    @Args('incidentId', { type: () => ID }) incidentId: string,
    @Args('role', { type: () => RACIRole }) role: RACIRole,
    @Args('userId', { type: () => ID }) userId: string,
    @GqlPrincipal() caller: Principal,
  ): Promise<Incident> {
    await this.commands.assignRole(incidentId, role, userId, { actor: caller.sub });
    return this.read(incidentId);
  }

  private warRoomLink(incidentId: string): string | null {
    return this.config.warRoomUrlTemplate?.replace('{id}', encodeURIComponent(incidentId)) ?? null;
  }

  private async load(incidents: GqlContext['incidents'], id: string): Promise<DomainIncident> {
    const incident = await incidents.load(id);
    if (!incident) throw incidentNotFound(id);
    return incident;
  }

  /** After a command: the read model, which the command waited for. */
  private async read(id: string): Promise<Incident> {
    const incident = await this.readStore.incidents.findById(id);
    if (!incident) throw incidentNotFound(id);
    return toGqlIncident(incident);
  }
}
