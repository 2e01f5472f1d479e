import type { HeartbeatRecord } from './heartbeat.projection';
import type { EscalationPolicyRecord, ScheduleRecord, ServiceRecord } from './oncall.projections';

/** Nest injection token of the OncallQueries port. */
export const ONCALL_QUERIES = Symbol('ONCALL_QUERIES');

/** One read model of configuration: an administrator's handful, not paged. */
export interface ConfigDocuments<Doc> {
  /** The document with this id; undefined when none exists (or it was deleted). */
  findById(id: string): Promise<Doc | undefined>;
  /** Every current document, oldest first (ties by id). */
  list(): Promise<Doc[]>;
  /**
   * The log position of the last event applied to the document, its version
   * (undefined when none exists): read without the document, so a caller can
   * keep what it derived from a large one until it changes.
   */
  positionOf(id: string): Promise<bigint | undefined>;
}

/** Query side of the on-call configuration's read models. */
export interface OncallQueries {
  readonly services: ConfigDocuments<ServiceRecord>;
  readonly escalationPolicies: ConfigDocuments<EscalationPolicyRecord>;
  readonly schedules: ConfigDocuments<ScheduleRecord>;
  readonly heartbeats: ConfigDocuments<HeartbeatRecord>;
}
