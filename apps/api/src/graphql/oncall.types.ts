import { Field, GraphQLISODateTime, ID, Int, ObjectType } from '@nestjs/graphql';

@ObjectType({ description: "A stretch of one schedule the caller is on call for: overrides applied, cut to the window asked about" })
export class OnCallShift {
  @Field(() => ID) scheduleId!: string;
  @Field() scheduleName!: string;
  @Field(() => GraphQLISODateTime) start!: Date;
  @Field(() => GraphQLISODateTime) end!: Date;
}

@ObjectType({ description: 'A service incidents belong to (REST /api/v1/services)' })
export class Service {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => ID, { nullable: true }) escalationPolicyId?: string | null;
}

@ObjectType({ description: "Where an incident's paging stands against its escalation policy" })
export class EscalationState {
  @Field(() => String, { nullable: true, description: 'null when the policy was deleted since the incident opened' }) policyName?: string | null;
  @Field(() => Int, { description: 'The step paged last, from 1; 0 before the first page' }) step!: number;
  @Field(() => Int, { description: 'The round of that page, from 1; 0 before the first page' }) round!: number;
  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When the next step is paged if the incident stays OPEN; null when nothing more is due' })
  nextEscalationAt?: Date | null;
  @Field() exhausted!: boolean;
  @Field(() => [ID], { description: 'The users paged in the current step' }) paged!: string[];
}
