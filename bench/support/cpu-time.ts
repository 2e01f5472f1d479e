import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) of a process (`/proc/<pid>`) or of the calling
 * thread (`/proc/thread-self`): a cost per operation that other load on the
 * machine does not inflate the way it inflates wall-clock rates. 10 ms resolution.
 */
export function cpuMs(proc: string): number {
  const stat = readFileSync(`${proc}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), from field 3: utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/**
 * `run`'s answer with the CPU process `pid` spent per request meanwhile, all
 * threads (`cpuUs`) and its main thread alone (`mainUs`: the event loop, what
 * bounds a Node server's rate while the worker threads have time to spare),
 * and the CPU this process (the load generator) spent per request, all in µs.
 */
export async function withCpu<T extends { requests: number }>(pid: number, run: () => Promise<T>): Promise<T & { cpuUs: number; mainUs: number; clientUs: number }> {
  const perRequest = (ms: number, result: T) => Math.round((ms * 1000) / result.requests);
  const before = cpuMs(`/proc/${pid}`);
  const mainBefore = cpuMs(`/proc/${pid}/task/${pid}`);
  const own = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(own);
  return {
    ...result,
    cpuUs: perRequest(cpuMs(`/proc/${pid}`) - before, result),
    mainUs: perRequest(cpuMs(`/proc/${pid}/task/${pid}`) - mainBefore, result),
    clientUs: Math.round((used.user + used.system) / result.requests),
  };
}
