import { Field, GraphQLISODateTime, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { EscalationState } from './oncall.types';
import GraphQLJSON from 'graphql-type-json';

/** GraphQL spells enums with underscores and capitals (SEV_1, OPEN); REST uses SEV-1, open. */
export enum Severity {
  SEV_1 = 'SEV_1',
  SEV_2 = 'SEV_2',
  SEV_3 = 'SEV_3',
  SEV_4 = 'SEV_4',
}

export enum Status {
  OPEN = 'OPEN',
  ACKNOWLEDGED = 'ACKNOWLEDGED',
  MITIGATED = 'MITIGATED',
  RESOLVED = 'RESOLVED',
  CLOSED = 'CLOSED',
  DUPLICATE = 'DUPLICATE',
  CANCELED = 'CANCELED',
}

export enum RACIRole {
  IC = 'IC',
  OPS = 'OPS',
  COMMS = 'COMMS',
  SECURITY = 'SECURITY',
  PRIVACY = 'PRIVACY',
}

export enum ActionType {
  ACK = 'ACK',
  ESCALATE = 'ESCALATE',
  JOIN_WAR_ROOM = 'JOIN_WAR_ROOM',
  ADD_NOTE = 'ADD_NOTE',
  CHANGE_SEVERITY = 'CHANGE_SEVERITY',
  ASSIGN_ROLE = 'ASSIGN_ROLE',
}

registerEnumType(Severity, { name: 'Severity' });
registerEnumType(Status, { name: 'Status', description: 'CANCELED (cancelIncident) and DUPLICATE (markDuplicate) are final, as CLOSED is.' });
registerEnumType(RACIRole, { name: 'RACIRole' });
registerEnumType(ActionType, { name: 'ActionType' });

@ObjectType()
export class Incident {
  @Field(() => ID) id!: string;
  @Field() title!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Severity) severity!: Severity;
  @Field(() => Status) status!: Status;
  @Field(() => [String]) services!: string[];
  @Field(() => GraphQLJSON, { nullable: true, description: 'Flat key → text pairs' }) labels?: Record<string, string> | null;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => GraphQLISODateTime) updatedAt!: Date;
  @Field(() => ID, { nullable: true, description: 'Of a DUPLICATE: the incident it duplicates' }) duplicateOf?: string | null;
  /** The service it belongs to, for the `service` field's resolver (IncidentServiceFields). */
  serviceId?: string | null;
}

@ObjectType()
export class IncidentSummary {
  @Field(() => ID) id!: string;
  @Field() title!: string;
  @Field(() => Severity) severity!: Severity;
  @Field(() => Status) status!: Status;
  @Field(() => GraphQLISODateTime) lastUpdate!: Date;
}

@ObjectType()
export class UserSummary {
  @Field(() => ID) id!: string;
  @Field(() => RACIRole, { description: 'The role this person holds on the incident' }) role!: RACIRole;
}

@ObjectType()
export class TimelineEventSummary {
  @Field(() => ID) id!: string;
  @Field() type!: string;
  @Field({ description: 'Title or text of the event, shortened; redacted as the policy says' }) summary!: string;
  @Field(() => GraphQLISODateTime) time!: Date;
  @Field({ description: 'Who the event says acted (im.actor, else its source); redacted as the policy says' }) actor!: string;
  @Field(() => String, {
    nullable: true,
    description: 'Who sent it: the authenticated writer, recorded by the service; differs from actor only for a relay. Null for events stored before senders were recorded; redacted wherever actor is',
  })
  sender?: string | null;
}

@ObjectType()
export class IncidentMobileView {
  @Field(() => ID) id!: string;
  @Field() title!: string;
  @Field(() => Severity) severity!: Severity;
  @Field(() => Status) status!: Status;
  @Field(() => UserSummary, { nullable: true, description: 'The incident commander' }) assignedTo?: UserSummary | null;
  @Field(() => [UserSummary], { description: 'Everyone holding a RACI role on the incident, in the order IC, OPS, COMMS, SECURITY, PRIVACY' })
  responders!: UserSummary[];
  @Field({ description: 'RFC 3339' }) lastUpdate!: string;
  @Field(() => String, { nullable: true }) warRoomLink?: string | null;
  @Field(() => [TimelineEventSummary], { description: 'The newest events the caller may see' }) quickTimeline!: TimelineEventSummary[];
  @Field(() => Int, { description: 'How many of its alerts (distinct fingerprints) are firing now' }) alertsFiring!: number;
  @Field(() => EscalationState, { nullable: true, description: 'Paging against its escalation policy; null without a policy' }) escalation?: EscalationState | null;
  /** The service it belongs to, for the `service` field's resolver (IncidentServiceFields). */
  serviceId?: string | null;
}

@ObjectType()
export class MobileAction {
  @Field(() => ID) id!: string;
  @Field() label!: string;
  @Field() icon!: string;
  @Field(() => ActionType) actionType!: ActionType;
  @Field() enabled!: boolean;
  @Field(() => String, { nullable: true }) confirmText?: string | null;
}

@ObjectType()
export class QuietHours {
  @Field({ description: 'HH:MM, 24-hour, in timeZone' }) start!: string;
  @Field({ description: 'HH:MM, 24-hour, in timeZone' }) end!: string;
  @Field({ description: 'IANA time zone, e.g. Europe/Berlin' }) timeZone!: string;
}

@ObjectType()
export class NotificationPreferences {
  // Clients' caches (Apollo, urql Graphcache) normalise objects by `id`: without one an update never reaches a cached read.
  @Field(() => ID, { description: 'Identifies the settings (one per user) for client caches' }) id!: string;
  @Field(() => ID) userId!: string;
  @Field() pushEnabled!: boolean;
  @Field(() => [Severity]) severityFilter!: Severity[];
  @Field(() => QuietHours, { nullable: true }) quietHours?: QuietHours | null;
  @Field(() => [String], { description: 'push, email' }) channels!: string[];
}

@ObjectType()
export class Note {
  @Field(() => ID) id!: string;
  @Field() content!: string;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
}

@InputType()
export class DeclareIncidentInput {
  @Field() title!: string;
  @Field(() => Severity) severity!: Severity;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => [String], { nullable: true }) services?: string[];
  @Field(() => GraphQLJSON, { nullable: true, description: 'Flat key → text pairs, at most 50' }) labels?: unknown;
  @Field(() => String, { nullable: true, description: 'public, internal (default), restricted or confidential' }) visibility?: string;
}

@InputType()
export class QuietHoursInput {
  @Field() start!: string;
  @Field() end!: string;
  @Field() timeZone!: string;
}

@InputType()
export class NotificationPreferencesInput {
  @Field(() => Boolean, { nullable: true }) pushEnabled?: boolean;
  @Field(() => [Severity], { nullable: true }) severityFilter?: Severity[];
  @Field(() => QuietHoursInput, { nullable: true, description: 'null turns quiet hours off' }) quietHours?: QuietHoursInput | null;
  @Field(() => [String], { nullable: true }) channels?: string[];
}

/** myIncidents' `limit`: the contract's default and bound (docs/api.md), not a tuning knob. */
export const MY_INCIDENTS_DEFAULT_LIMIT = 20;
export const MY_INCIDENTS_MAX_LIMIT = 100;
export { Int };
