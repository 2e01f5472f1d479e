/** The timeline and alert write path: an event's dedup and routing (append-plan.ts), and its append (TimelineAppendHandler), shared by the api and apps/projector. */
export * from './append-plan';
export * from './timeline-append.handler';
export * from './timeline-append.module';
