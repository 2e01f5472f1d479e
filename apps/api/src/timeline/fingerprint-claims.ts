import { Inject, Injectable } from '@nestjs/common';
import { type CloudEvent, SERVICE_SOURCE } from '@im/cloudevents';
import { FINGERPRINT_BIND_TYPE, fingerprintStreamId, type IncidentState, incidentStreamId } from '@im/incidents';
import { CLOCK, type Clock, CommandHandler, ID_GENERATOR, type IdGenerator, type StreamModel } from '@im/write-path';
import { incidentStream } from '../ledger/incident-stream';
import { unresolved } from './append-plan';

/** A fingerprint's stream: the incident its alerts join is the last claim's. */
const fingerprintStream: StreamModel<string | undefined> = {
  // A client sees the claim as part of the incident its alert joins.
  subject: 'incident',
  initialState: undefined,
  evolve: (_, claim) => String(claim.event.data?.incident_id),
};

/** Which incident each alert fingerprint's alerts join (decisions.md, "An event without subject"). */
@Injectable()
export class FingerprintClaims {
  constructor(
    private readonly commands: CommandHandler,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  /** The incident the fingerprint's alerts joined last, if any. */
  bound(fingerprint: string): Promise<string | undefined> {
    return this.commands.state(fingerprintStream, fingerprintStreamId(fingerprint));
  }

  /** The incident the fingerprint's alerts joined last, and whether it is still unresolved (read-only). */
  async current(fingerprint: string): Promise<{ incidentId: string; unresolved: boolean } | undefined> {
    const incidentId = await this.bound(fingerprint);
    return incidentId === undefined ? undefined : { incidentId, unresolved: unresolved(await this.incident(incidentId)) };
  }

  /**
   * The newest not-yet-resolved incident of the fingerprint, or a new one that
   * this call claims. The claim is appended at the revision it was decided on,
   * so concurrent alerts of one storm agree on one incident. A claim whose
   * incident was never written (a crash in between) is reused.
   */
  async joinOrClaim(fingerprint: string): Promise<string> {
    const { state } = await this.commands.handle(fingerprintStream, fingerprintStreamId(fingerprint), async (bound) =>
      bound !== undefined && unresolved(await this.incident(bound)) ? [] : [this.claim(fingerprint, this.ids.incidentId())],
    );
    return state as string;
  }

  private incident(incidentId: string): Promise<IncidentState> {
    return this.commands.state(incidentStream, incidentStreamId(incidentId));
  }

  private claim(fingerprint: string, incidentId: string): CloudEvent {
    return {
      specversion: '1.0',
      id: this.ids.eventId(),
      source: SERVICE_SOURCE,
      type: FINGERPRINT_BIND_TYPE,
      time: this.clock.now().toISOString(),
      data: { fingerprint, incident_id: incidentId },
    };
  }
}
