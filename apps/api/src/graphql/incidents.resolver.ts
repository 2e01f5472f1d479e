import { Args, ID, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import { IncidentQueryService, IncidentVisibility, type Principal, TIMELINE_ROLES } from '@im/access';
import { RequireRole } from '../auth/access.decorators';
import { IncidentCommandHandler } from '../incidents/incident-command.handler';
import { parseDeclareIncidentInput } from './declare-incident.input';
import { type GqlContext, GqlIncidents, GqlPrincipal } from './graphql-context';
import { IncidentMobileViews } from './incident-mobile-views';
import { parseMyIncidentsLimit } from './my-incidents.args';
import { fromGqlSeverity, fromGqlStatus, toGqlIncident, toGqlSummary } from './schema.mapping';
import {
  DeclareIncidentInput,
  Incident,
  IncidentMobileView,
  IncidentSummary,
  MobileAction,
  MY_INCIDENTS_DEFAULT_LIMIT,
  Note,
  RACIRole,
  Severity,
  Status,
} from './schema.types';

@Resolver()
export class IncidentsResolver {
  constructor(
    private readonly commands: IncidentCommandHandler,
    private readonly incidents: IncidentQueryService,
    private readonly visibility: IncidentVisibility,
    private readonly mobileViews: IncidentMobileViews,
  ) {}

  @Query(() => [IncidentSummary], {
    description: 'Incidents where the caller holds any RACI role, newest first',
    complexity: ({ args, childComplexity }) => (args.limit ?? MY_INCIDENTS_DEFAULT_LIMIT) * childComplexity,
  })
  async myIncidents(
    @GqlPrincipal() caller: Principal,
    // `Int = 20` as docs/api.md has it: an explicit null means the default.
    @Args('limit', { type: () => Int, nullable: true, defaultValue: MY_INCIDENTS_DEFAULT_LIMIT }) requested: number | null,
    @Args('status', { type: () => [Status], nullable: true }) status?: Status[],
    @Args('severity', { type: () => [Severity], nullable: true }) severity?: Severity[],
  ): Promise<IncidentSummary[]> {
    const limit = parseMyIncidentsLimit(requested);
    const mine = await this.incidents.listMine(caller, { limit, statuses: status?.map(fromGqlStatus), severities: severity?.map(fromGqlSeverity) });
    return mine.map(toGqlSummary);
  }

  @Query(() => IncidentMobileView, { nullable: true, description: 'A compact view for a phone, with the newest events' })
  incidentStatus(
    @Args('id', { type: () => ID }) id: string,
    @GqlPrincipal() caller: Principal,
    @GqlIncidents() incidents: GqlContext['incidents'],
  ): Promise<IncidentMobileView> {
    return this.mobileViews.status(caller, incidents, id);
  }

  @Query(() => [MobileAction], { description: 'What the caller can do on the incident now (rules in docs/decisions.md)' })
  quickActions(
    @Args('incidentId', { type: () => ID }) incidentId: string,
    @GqlPrincipal() caller: Principal,
    @GqlIncidents() incidents: GqlContext['incidents'],
  ): Promise<MobileAction[]> {
    return this.mobileViews.actions(caller, incidents, incidentId);
  }

  @Mutation(() => Incident, { description: 'Declares an incident; the caller becomes incident commander. Needs timeline.writer' })
  @RequireRole(TIMELINE_ROLES.writer)
  async declareIncident(@Args('input') input: DeclareIncidentInput, @GqlPrincipal() caller: Principal): Promise<Incident> {
    const declaration = parseDeclareIncidentInput(input, caller, this.visibility.levelsFor(caller));
    return toGqlIncident(await this.commands.declare(declaration.input, { caller, attributes: declaration.attributes }));
  }

  @Mutation(() => Incident, { description: 'Acknowledges, following the lifecycle table. Needs timeline.writer' })
  @RequireRole(TIMELINE_ROLES.writer)
  async ackIncident(@Args('id', { type: () => ID }) id: string, @GqlPrincipal() caller: Principal): Promise<Incident> {
    return toGqlIncident(await this.commands.transition(id, 'ack', { caller }));
  }

  @Mutation(() => Incident, {
    description: 'Pages the next step of the escalation policy now (reason manual) while OPEN or ACKNOWLEDGED; the status stays. Needs timeline.writer',
  })
  @RequireRole(TIMELINE_ROLES.writer)
  async escalateIncident(@Args('incidentId', { type: () => ID }) incidentId: string, @GqlPrincipal() caller: Principal): Promise<Incident> {
    return toGqlIncident(await this.commands.escalate(incidentId, { caller }));
  }

  @Mutation(() => Incident, { description: 'Cancels an open or acknowledged incident (CANCELED), which ends its paging. Needs timeline.writer' })
  @RequireRole(TIMELINE_ROLES.writer)
  async cancelIncident(@Args('incidentId', { type: () => ID }) incidentId: string, @GqlPrincipal() caller: Principal): Promise<Incident> {
    return toGqlIncident(await this.commands.transition(incidentId, 'cancel', { caller }));
  }

  @Mutation(() => Incident, {
    description:
      'Marks an open, acknowledged or mitigated incident a DUPLICATE of `of` (another incident, neither CANCELED nor a DUPLICATE), which ends its paging; its alerts go to `of`. Needs timeline.writer',
  })
  @RequireRole(TIMELINE_ROLES.writer)
  async markDuplicate(
    @Args('incidentId', { type: () => ID }) incidentId: string,
    @Args('of', { type: () => ID }) of: string,
    @GqlPrincipal() caller: Principal,
  ): Promise<Incident> {
    return toGqlIncident(await this.commands.markDuplicate(incidentId, of, { caller }));
  }

  @Mutation(() => Incident, { description: 'Records im.incident.severity; until the incident is closed. Needs timeline.writer' })
  @RequireRole(TIMELINE_ROLES.writer)
  async changeSeverity(
    @Args('incidentId', { type: () => ID }) incidentId: string,
    @Args('severity', { type: () => Severity }) severity: Severity,
    @GqlPrincipal() caller: Principal,
  ): Promise<Incident> {
    return toGqlIncident(await this.commands.changeSeverity(incidentId, fromGqlSeverity(severity), { caller }));
  }

  @Mutation(() => Note, { description: 'Until the incident is closed. Needs timeline.writer' })
  @RequireRole(TIMELINE_ROLES.writer)
  async addNote(
    @Args('incidentId', { type: () => ID }) incidentId: string,
    @Args('content') content: string,
    @GqlPrincipal() caller: Principal,
  ): Promise<Note> {
    const note = await this.commands.addNote(incidentId, content, { caller });
    return { id: note.id, content: String(note.data?.content), createdAt: new Date(note.time) };
  }

  @Mutation(() => Incident, {
    description: 'Until the incident is closed: anyone while it has no commander, then the commander or incidents.admin. Needs timeline.writer',
  })
  @RequireRole(TIMELINE_ROLES.writer)
  async assignRole(
    @Args('incidentId', { type: () => ID }) incidentId: string,
    @Args('role', { type: () => RACIRole }) role: RACIRole,
    @Args('userId', { type: () => ID }) userId: string,
    @GqlPrincipal() caller: Principal,
  ): Promise<Incident> {
    return toGqlIncident(await this.commands.assignRole(incidentId, role, userId, { caller }));
  }

}
