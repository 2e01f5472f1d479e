import { type BeforeApplicationShutdown, type DynamicModule, Global, Inject, Logger, Module } from '@nestjs/common';
import { LEASE_STORE, type LeaseHolder, type LeaseStore } from '@im/read-models';
import { LeaseKeeper } from './lease-keeper';
import { thisProcess } from './lease-holder';

/** Nest injection token of this process's LeaseKeeper. */
export const LEASE_KEEPER = Symbol('LEASE_KEEPER');

/**
 * The process's LeaseKeeper, for the work one process at a time may run:
 * the projections, each outbound channel, the timers. Global, imported by
 * each app with what kind of process it is; the leases are given up before
 * the stores close (PersistenceModule closes them in onApplicationShutdown).
 */
@Global()
@Module({})
export class LeasesModule implements BeforeApplicationShutdown {
  constructor(@Inject(LEASE_KEEPER) private readonly keeper: LeaseKeeper) {}

  static forRoot(kind: LeaseHolder['kind']): DynamicModule {
    return {
      module: LeasesModule,
      providers: [
        {
          provide: LEASE_KEEPER,
          inject: [LEASE_STORE],
          useFactory: (store: LeaseStore) => {
            const logger = new Logger('Leases');
            return new LeaseKeeper(store, thisProcess(kind), {
              won: (name, generation) => logger.log(`Holds the lease ${name} (generation ${generation})`),
              lost: (name, why) => logger.warn(`Lost the lease ${name}: ${why}; its work stopped here`),
              error: (what, error) => logger.error(`Could not ${what}, will try again: ${String(error)}`),
            });
          },
        },
      ],
      exports: [LEASE_KEEPER],
    };
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.keeper.close();
  }
}
