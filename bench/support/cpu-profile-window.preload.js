/**
 * `node -r` this: the first SIGUSR2 starts the inspector's CPU profiler, the
 * second stops it and writes `<BENCH_CPU_PROF_DIR>/<pid>.cpuprofile`. So a
 * profile covers one workload, without the process's start-up or catch-up
 * (bench/profile.ts sends the signals).
 */
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const session = new Session();
session.connect();
session.post('Profiler.enable');
let profiling = false;
process.on('SIGUSR2', () => {
  if (!profiling) {
    profiling = true;
    session.post('Profiler.start');
    return;
  }
  profiling = false;
  session.post('Profiler.stop', (error, result) => {
    if (!error) writeFileSync(join(process.env.BENCH_CPU_PROF_DIR, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });
});
