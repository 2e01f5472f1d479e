import { Module } from '@nestjs/common';
import { CLOCK, type Clock, systemClock } from './clock';
import { CommandHandler } from './command-handler';
import { ID_GENERATOR, randomIds } from './id-generator';
import { RETRY_POLICY, RetryPolicy } from './retry-policy';

/**
 * The write path shared by REST commands, timeline appends, GraphQL mutations and preferences.
 * Its READ_YOUR_WRITES comes from the app's ProjectionsModule (libs/persistence, global).
 */
@Module({
  providers: [
    CommandHandler,
    { provide: CLOCK, useValue: systemClock },
    { provide: ID_GENERATOR, useValue: randomIds },
    { provide: RETRY_POLICY, inject: [CLOCK], useFactory: (clock: Clock) => new RetryPolicy(clock) },
  ],
  exports: [CommandHandler, CLOCK, ID_GENERATOR],
})
export class LedgerModule {}
