import { Module } from '@nestjs/common';
import { ProjectionsModule } from '@im/persistence';
import { CLOCK, type Clock, systemClock } from './clock';
import { CommandHandler } from './command-handler';
import { ID_GENERATOR, randomIds } from './id-generator';
import { ReadYourWrites } from './read-your-writes';
import { RETRY_POLICY, RetryPolicy } from './retry-policy';

/** The write path shared by REST commands, timeline appends, GraphQL mutations and preferences. */
@Module({
  imports: [ProjectionsModule],
  providers: [
    CommandHandler,
    ReadYourWrites,
    { provide: CLOCK, useValue: systemClock },
    { provide: ID_GENERATOR, useValue: randomIds },
    { provide: RETRY_POLICY, inject: [CLOCK], useFactory: (clock: Clock) => new RetryPolicy(clock) },
  ],
  exports: [CommandHandler, ReadYourWrites, CLOCK, ID_GENERATOR, RETRY_POLICY, ProjectionsModule],
})
export class LedgerModule {}
