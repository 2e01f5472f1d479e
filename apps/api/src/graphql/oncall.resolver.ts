import { Inject } from '@nestjs/common';
import { Query, Resolver } from '@nestjs/graphql';
import type { Principal } from '@im/access';
import { CLOCK, type Clock } from '@im/write-path';
import { OncallQueryService } from '../oncall/oncall-query.service';
import { GqlPrincipal } from './graphql-context';
import { OnCallShift } from './oncall.types';

/** How far ahead myOnCall looks: the contract's week. */
const MY_ONCALL_DAYS = 7;
const DAY_MS = 86_400_000;

/** The caller's own on-call shifts. */
@Resolver()
export class OncallResolver {
  constructor(
    private readonly oncall: OncallQueryService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Query(() => [OnCallShift], { description: "The caller's shifts across every schedule from now for 7 days, in time order (one already running starts now)" })
  myOnCall(@GqlPrincipal() caller: Principal): Promise<OnCallShift[]> {
    const now = this.clock.now().getTime();
    return this.oncall.shiftsOf(caller.sub, now, now + MY_ONCALL_DAYS * DAY_MS);
  }
}
