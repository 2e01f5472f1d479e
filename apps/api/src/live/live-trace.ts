import { writeFileSync } from 'node:fs';

/**
 * Where live delivery's time goes, for bench/live-delivery.bench.ts only: with
 * LIVE_TRACE_FILE set, the api records for each note whose content is
 * `n<number>` (the bench's) when the feed read it from the log, when the read
 * models had passed it, when it was offered to the subscribers, and its first
 * and last SSE write; and each flush tick's writes, CPU and wall time. The
 * file is rewritten every few seconds (with process.memoryUsage()); without
 * the variable every call is a no-op. `npx ts-node bench/live-trace-stages.ts <file>` reads it.
 */
const file = process.env.LIVE_TRACE_FILE;
/** How often the trace file is rewritten with a memory sample: a bench's instrument, not a knob. */
const MEMORY_SAMPLE_MS = 3000;
const now = () => performance.timeOrigin + performance.now();
type Stage = 'read' | 'projected' | 'offered';
type Record = { [stage in Stage | 'firstWrite' | 'lastWrite']?: number } & { writes: number };

const bySequence = new Map<number, Record>();
const sequenceOfItem = new WeakMap<object, number>();
const ticks: number[][] = [];
const memory: number[][] = [];

const recordOf = (sequence: number) => {
  let record = bySequence.get(sequence);
  if (!record) bySequence.set(sequence, (record = { writes: 0 }));
  return record;
};

const sequenceOf = (content: unknown) => (typeof content === 'string' && /^n\d+$/.test(content) ? Number(content.slice(1)) : undefined);

export const liveTrace = {
  on: file !== undefined,
  now,
  /** The bench's sequence numbers of the notes among `events` (CloudEvents' data.content). */
  sequences(events: { event: { data?: unknown } }[]): number[] {
    return events.map((e) => sequenceOf((e.event.data as { content?: unknown } | undefined)?.content)).filter((s): s is number => s !== undefined);
  },
  stage(sequences: number[], stage: Stage): void {
    const t = now();
    for (const sequence of sequences) recordOf(sequence)[stage] ??= t;
  },
  /** Ties a feed item to its note, so the writes of it can be timed. */
  item(item: object, content: string): void {
    const sequence = sequenceOf(content);
    if (sequence !== undefined) sequenceOfItem.set(item, sequence);
  },
  wrote(items: object[]): void {
    const t = now();
    for (const item of items) {
      const sequence = sequenceOfItem.get(item);
      if (sequence === undefined) continue;
      const record = recordOf(sequence);
      record.firstWrite ??= t;
      record.lastWrite = t;
      record.writes++;
    }
  },
  /** [end, writes, flush CPU-side ms, wall ms from fire to last slice, slices, next interval ms, the others' share of the loop]. */
  tick(row: number[]): void {
    ticks.push(row);
  },
};

if (file) {
  setInterval(() => {
    const m = process.memoryUsage();
    memory.push([now(), m.rss, m.heapTotal, m.heapUsed, m.external, m.arrayBuffers]);
    writeFileSync(file, JSON.stringify({ events: [...bySequence], ticks, memory }));
  }, MEMORY_SAMPLE_MS).unref();
}
