/**
 * `node -r` this (bench/profile.ts with `--heap`): samples the process's
 * allocations with the inspector (one sample per 4 kB allocated on average)
 * from a first SIGUSR2 to a second, then writes
 * `<BENCH_CPU_PROF_DIR>/<pid>.heapprofile`. Garbage collection costs in
 * proportion to what is allocated; this says where it was allocated.
 */
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const session = new Session();
session.connect();
session.post('HeapProfiler.enable');

let sampling = false;
process.on('SIGUSR2', () => {
  sampling = !sampling;
  // Collected objects included: what costs garbage collection is what was allocated, not what survived.
  if (sampling)
    session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  else
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(join(process.env.BENCH_CPU_PROF_DIR, `${process.pid}.heapprofile`), JSON.stringify(result.profile));
    });
});
