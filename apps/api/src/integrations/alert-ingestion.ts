import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '@im/incidents';
import { CommandHandler, ID_GENERATOR, type IdGenerator } from '@im/write-path';
import type { Principal } from '@im/access';
import { TimelineAppendHandler } from '@im/timeline-append';
import { type ClientError, classify, RetryLaterError } from '../errors/error-mapping';
import { type AppendResult, appendedResult, refusedResult } from '../timeline/append-result';
import { parseCloudEventBody } from '../timeline/cloud-event.body';
import { attributed } from '../timeline/event-attribution';
import { alertEvent } from './alert-event';
import type { AlertPayload } from './alert-payload.body';

/** A resolution of an alert that never opened an incident: nothing to attach it to, and nothing stored. */
export interface IgnoredResult {
  index: number;
  status: 200;
  ignored: true;
  reason: string;
}

export type AlertResult = AppendResult | IgnoredResult;

export interface AlertResults {
  results: AlertResult[];
}

/** Alertmanager ignores it (it retries with its own backoff); other senders may not. */
export const RETRY_AFTER_SECONDS = 5;

/** An alert's answer, with the position it was stored at (none: nothing stored). */
interface Outcome {
  result: AlertResult;
  position?: bigint;
}

/**
 * A webhook payload of an alert source: each alert appended as if it came
 * alone through the timeline (dedup, routing by fingerprint, the decider),
 * all at once, then one wait for the read models. When the service cannot
 * store now, the whole payload is 503: the sender sends it again, and what
 * was stored already comes back as duplicates.
 */
@Injectable()
export class AlertIngestion {
  constructor(
    private readonly appender: TimelineAppendHandler,
    private readonly commands: CommandHandler,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async ingest(payload: AlertPayload, writer: Principal): Promise<AlertResults> {
    try {
      const outcomes = await this.commands.all(payload.alerts.map((_, index) => this.store(payload, index, writer)));
      return { results: outcomes.map(({ result }) => result) };
    } catch (error) {
      throw error instanceof RetryLaterError ? error : retryLater(classify(error));
    }
  }

  private async store({ sender, receiver, alerts }: AlertPayload, index: number, writer: Principal): Promise<Outcome> {
    const alert = alerts[index];
    try {
      // Checked as any appended event is (size, names), so an odd alert is refused alone.
      const event = attributed(parseCloudEventBody(alertEvent(alert, sender, receiver, this.ids.eventId())), writer);
      const { answer, position } = await this.appender.record(event, { idDrawnHere: true });
      return { result: appendedResult(index, answer), position };
    } catch (error) {
      if (error instanceof NotFoundError && alert.status === 'resolved') {
        return { result: { index, status: 200, ignored: true, reason: `${error.message}: the resolution of an alert that opened no incident is not recorded` } };
      }
      const client = classify(error);
      if (client.status >= 500) throw retryLater(client);
      return { result: refusedResult(index, client) };
    }
  }
}

/** Any server-side failure (storage, views behind, PDP) as the one answer an alert source retries: 503. */
const retryLater = ({ message }: ClientError) => new RetryLaterError(`${message} (send the payload again: alerts already stored are answered as duplicates)`, RETRY_AFTER_SECONDS);
