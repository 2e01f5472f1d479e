import { Field, Float, Int, ObjectType, registerEnumType } from '@nestjs/graphql';

export enum MetricsGrouping {
  SERVICE = 'SERVICE',
  SEVERITY = 'SEVERITY',
  WEEK = 'WEEK',
  NONE = 'NONE',
}

registerEnumType(MetricsGrouping, { name: 'MetricsGrouping', description: 'WEEK: the ISO week (UTC) of the declaration, e.g. 2026-W49' });

@ObjectType({ description: 'Seconds between ledger record times; null when no incident of the group has the time' })
export class MetricsTimes {
  @Field(() => Float, { nullable: true, description: 'Nearest-rank median' }) p50!: number | null;
  @Field(() => Float, { nullable: true, description: 'Nearest-rank 90th percentile' }) p90!: number | null;
  @Field(() => Float, { nullable: true }) mean!: number | null;
}

@ObjectType({ description: 'The response metrics of one group of incidents (docs/api.md, "Insights: response metrics")' })
export class MetricsGroup {
  @Field(() => String, {
    nullable: true,
    description: "The service's name (its id once deleted; null: no service), the severity as REST writes it (SEV-1), the ISO week (2026-W49), or null for NONE",
  })
  key!: string | null;
  @Field(() => Int, { description: 'Declared in the window, neither canceled nor a duplicate' }) incidents!: number;
  @Field(() => Int) acknowledged!: number;
  @Field(() => Int) resolved!: number;
  @Field(() => Int, { description: 'With at least one im.paging.escalate' }) escalated!: number;
  @Field(() => Int) canceled!: number;
  @Field(() => Int) duplicates!: number;
  @Field(() => Int) alerts!: number;
  @Field(() => MetricsTimes, { description: "From the declaration's record time to the first acknowledgement's" }) timeToAcknowledge!: MetricsTimes;
  @Field(() => MetricsTimes, { description: "From the declaration's record time to the first resolution's" }) timeToResolve!: MetricsTimes;
}
