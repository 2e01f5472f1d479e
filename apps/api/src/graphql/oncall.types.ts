import { Field, GraphQLISODateTime, ID, ObjectType } from '@nestjs/graphql';

@ObjectType({ description: "A stretch of one schedule the caller is on call for: overrides applied, cut to the window asked about" })
export class OnCallShift {
  @Field(() => ID) scheduleId!: string;
  @Field() scheduleName!: string;
  @Field(() => GraphQLISODateTime) start!: Date;
  @Field(() => GraphQLISODateTime) end!: Date;
}
