import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { LedgerModule } from '@im/write-path';
import { IncidentsModule } from '../incidents/incidents.module';
import { TimelineModule } from '../timeline/timeline.module';
import { LiveFeed } from './live-feed';
import { LiveController } from './live.controller';

/** Live delivery: the ledger followed once per process, fanned out to SSE streams and GraphQL subscriptions. */
@Module({
  imports: [LedgerModule, IncidentsModule, TimelineModule],
  controllers: [LiveController],
  providers: [LiveFeed],
  exports: [LiveFeed],
})
export class LiveModule implements OnModuleInit {
  constructor(
    private readonly host: HttpAdapterHost,
    private readonly feed: LiveFeed,
  ) {}

  /**
   * Open streams never finish by themselves: the server's close would wait
   * for them until the shutdown grace is over. They end first, and their
   * clients reconnect, with their last cursor, to a server that is up.
   */
  onModuleInit(): void {
    this.host.httpAdapter.getInstance<FastifyInstance>().addHook('preClose', (done) => {
      this.feed.endAll();
      done();
    });
  }
}
