import { Args, ID, Resolver, Subscription } from '@nestjs/graphql';
import type { Incident as DomainIncident } from '@im/incidents';
import type { Principal } from '@im/access';
import { LiveFeed } from '../live/live-feed';
import { GqlPrincipal } from './graphql-context';
import { IncidentMobileViews } from './incident-mobile-views';
import { toGqlSummary, toGqlTimelineEvent } from './schema.mapping';
import { IncidentMobileView, IncidentSummary, TimelineEventSummary } from './schema.types';
import { subscriptionPayloads } from './subscription-payloads';

/** As myIncidents has it: the caller holds one of the incident's RACI roles. */
const holdsRole = (caller: Principal, incident: DomainIncident) => Object.values(incident.roles ?? {}).includes(caller.sub);

/**
 * The subscriptions (docs/api.md, "Live delivery"), over graphql-ws only
 * (graphql-ws.server.ts checks roles before they start). Each follows the
 * ledger through LiveFeed, which shows the subscriber only what a read would:
 * withheld incidents and events never arrive, notes arrive redacted. What would
 * fail a read before it starts (the incident missing or withheld, the PDP
 * unavailable) fails the subscription before it starts, with the same code.
 */
@Resolver()
export class LiveResolver {
  constructor(
    private readonly feed: LiveFeed,
    private readonly mobileViews: IncidentMobileViews,
  ) {}

  @Subscription(() => IncidentMobileView, { description: 'The incident as incidentStatus shows it, after each of its changes. Needs a role' })
  async incidentUpdated(@Args('id', { type: () => ID }) id: string, @GqlPrincipal() caller: Principal) {
    // Its own changes only, and the events of its timeline the caller is shown (checked as a read of them): the view lists the newest.
    const changes = await this.feed.incidentChanges(caller, undefined, { incidentId: id, timeline: true });
    return subscriptionPayloads('incidentUpdated', changes, id, ({ incident }) => this.mobileViews.of(caller, incident));
  }

  @Subscription(() => IncidentSummary, { description: 'Each change of an incident where the caller then holds a RACI role (as myIncidents). Needs a role' })
  async myIncidentsChanged(@GqlPrincipal() caller: Principal) {
    const changes = await this.feed.incidentChanges(caller);
    return subscriptionPayloads('myIncidentsChanged', changes, '', ({ incident }) => (holdsRole(caller, incident) ? toGqlSummary(incident) : undefined));
  }

  @Subscription(() => TimelineEventSummary, { description: 'Each event appended to the incident timeline that the caller may see, redacted. Needs timeline.reader' })
  async timelineEvent(@Args('incidentId', { type: () => ID }) incidentId: string, @GqlPrincipal() caller: Principal) {
    const events = await this.feed.timeline(caller, incidentId);
    return subscriptionPayloads('timelineEvent', events, '', ({ event }) => toGqlTimelineEvent(event));
  }
}
