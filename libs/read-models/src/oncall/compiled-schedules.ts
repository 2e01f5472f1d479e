import { compileSchedule, type CompiledSchedule } from '@im/incidents';
import type { ConfigDocuments } from './oncall-queries.port';
import type { ScheduleRecord } from './oncall.projections';

/** Schedules kept compiled: a few hundred is more than a team has; past it, the oldest kept goes. */
const KEPT_SCHEDULES = 500;

export interface ReadySchedule {
  record: ScheduleRecord;
  compiled: CompiledSchedule;
}

/**
 * Schedules compiled once per version. A schedule's document grows with its
 * overrides (past ones stay listed), and parsing and compiling one of 1,000
 * overrides took about 1.5 ms of CPU per request, over the contract's 1 ms
 * for who is on call (docs/benchmarks.md, "Who is on call"); asking its
 * version (the position of its last change) costs a lookup of one column.
 * Read-your-writes holds: a version that moved is compiled again.
 */
export class CompiledSchedules {
  private readonly kept = new Map<string, ReadySchedule & { position: bigint }>();

  constructor(private readonly schedules: ConfigDocuments<ScheduleRecord>) {}

  /** The schedule as it stands, compiled; undefined when there is none. */
  async get(id: string): Promise<ReadySchedule | undefined> {
    const position = await this.schedules.positionOf(id);
    if (position === undefined) {
      this.kept.delete(id);
      return undefined;
    }
    const kept = this.kept.get(id);
    if (kept?.position === position) return kept;
    const record = await this.schedules.findById(id);
    if (!record) return undefined;
    // Kept under the version read first: a document newer than it is compiled again next time, never an older one served.
    const ready = { record, compiled: compileOf(record), position };
    this.kept.delete(id);
    this.kept.set(id, ready);
    if (this.kept.size > KEPT_SCHEDULES) this.kept.delete(this.kept.keys().next().value!);
    return ready;
  }
}

export const compileOf = (schedule: ScheduleRecord): CompiledSchedule =>
  compileSchedule({ timeZone: schedule.timeZone, layers: schedule.layers, overrides: schedule.overrides });
