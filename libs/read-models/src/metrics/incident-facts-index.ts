import { type IncidentFacts, type MeasuredIncident, measured } from '@im/incidents';
import type { ChangesRead, IncidentMetricsQueries } from './incident-metrics-queries.port';

/** The incidents of one visibility (null: declared without one), by declaration. */
interface Partition {
  incidents: MeasuredIncident[];
  /** False once an incident declared before the last one came in: sorted again before the next window is read. */
  sorted: boolean;
  /** Log position of the latest change to one of them. */
  lastChange: bigint;
}

/**
 * An api's copy of the `incident_metrics` read model, in memory, kept by
 * applying its changes in log order (docs/api.md, "Insights"): a window of a
 * year is two binary searches and the aggregation, where reading it from the
 * store took most of a second.
 *
 * Incidents are kept apart by visibility, so a window reads only those of the
 * levels the caller is cleared for: how long it takes tells nothing of the
 * others.
 */
export class IncidentFactsIndex {
  private readonly partitions = new Map<string | null, Partition>();
  private readonly byId = new Map<string, { partition: Partition; incident: MeasuredIncident }>();
  /** Every change up to this log position has been applied. */
  private appliedTo = 0n;

  get position(): bigint {
    return this.appliedTo;
  }

  get size(): number {
    return this.byId.size;
  }

  /** A read of the changes after `position`. An incident whose declaration cannot be read is left out, never in a window, and passed over. */
  apply({ changes, readTo }: ChangesRead): void {
    for (const { facts, position } of changes) if (!Number.isNaN(Date.parse(facts.declaredAt))) this.put(facts, position);
    if (readTo > this.appliedTo) this.appliedTo = readTo;
  }

  /** Reads and applies every change the read model holds after `position`, `perRead` at a time. */
  async catchUp(queries: IncidentMetricsQueries, perRead: number): Promise<void> {
    for (;;) {
      const from = this.appliedTo;
      const read = await queries.changedSince(from, perRead);
      this.apply(read);
      if (read.changes.length < perRead || this.appliedTo === from) return;
    }
  }

  /** The latest change to an incident of these levels (or of none), 0 for none: an answer over them holds while it stays. */
  lastChange(visibleLevels: readonly string[]): bigint {
    let latest = 0n;
    for (const level of [null, ...visibleLevels]) {
      const changed = this.partitions.get(level)?.lastChange ?? 0n;
      if (changed > latest) latest = changed;
    }
    return latest;
  }

  /** The incidents declared in [fromMs, toMs) with no visibility or one of `visibleLevels`, in no particular order. */
  declaredIn(fromMs: number, toMs: number, visibleLevels: readonly string[]): MeasuredIncident[] {
    const found: MeasuredIncident[][] = [];
    for (const level of new Set<string | null>([null, ...visibleLevels])) {
      const partition = this.partitions.get(level);
      if (!partition) continue;
      if (!partition.sorted) {
        partition.incidents.sort((a, b) => a.declaredMs - b.declaredMs);
        partition.sorted = true;
      }
      const { incidents } = partition;
      found.push(incidents.slice(firstDeclaredFrom(incidents, fromMs), firstDeclaredFrom(incidents, toMs)));
    }
    return found.length === 1 ? found[0] : ([] as MeasuredIncident[]).concat(...found);
  }

  private put(facts: IncidentFacts, position: bigint): void {
    const incident = measured(facts);
    const kept = this.byId.get(incident.id);
    const partition = this.partitionOf(incident.visibility);
    if (position > partition.lastChange) partition.lastChange = position;
    if (kept && kept.partition === partition && kept.incident.declaredMs === incident.declaredMs) {
      // The fold never changes either after the opening: the incident keeps its place.
      const { incidents } = partition;
      incidents[incidents.indexOf(kept.incident, partition.sorted ? firstDeclaredFrom(incidents, incident.declaredMs) : 0)] = incident;
      kept.incident = incident;
      return;
    }
    if (kept) {
      kept.partition.incidents.splice(kept.partition.incidents.indexOf(kept.incident), 1);
      if (position > kept.partition.lastChange) kept.partition.lastChange = position;
    }
    const { incidents } = partition;
    if (incidents.length && incidents[incidents.length - 1].declaredMs > incident.declaredMs) partition.sorted = false;
    incidents.push(incident);
    this.byId.set(incident.id, { partition, incident });
  }

  private partitionOf(visibility: string | null): Partition {
    let partition = this.partitions.get(visibility);
    if (!partition) this.partitions.set(visibility, (partition = { incidents: [], sorted: true, lastChange: 0n }));
    return partition;
  }
}

/** The index of the first incident declared at or after `ms` in incidents sorted by declaration (their length: none). */
function firstDeclaredFrom(incidents: readonly MeasuredIncident[], ms: number): number {
  let low = 0;
  let high = incidents.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (incidents[middle].declaredMs < ms) low = middle + 1;
    else high = middle;
  }
  return low;
}
