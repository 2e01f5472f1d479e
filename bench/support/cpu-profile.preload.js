/**
 * `node -r` this (through NODE_OPTIONS, which does not take --cpu-prof in
 * Node 20, or on the command line): profiles the process with the inspector
 * and writes `<BENCH_CPU_PROF_DIR>/<pid>.cpuprofile`, as --cpu-prof would.
 * From start to exit; or, with BENCH_CPU_PROF_WINDOW=1, from a first SIGUSR2
 * to a second, so a profile covers one workload without the process's
 * start-up or catch-up (bench/profile.ts sends the signals).
 */
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const session = new Session();
session.connect();
session.post('Profiler.enable');

// A session on its own thread answers synchronously, so this works in 'exit' too.
const stopAndWrite = () =>
  session.post('Profiler.stop', (error, result) => {
    if (!error) writeFileSync(join(process.env.BENCH_CPU_PROF_DIR, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });

if (process.env.BENCH_CPU_PROF_WINDOW === '1') {
  let profiling = false;
  process.on('SIGUSR2', () => {
    profiling = !profiling;
    if (profiling) session.post('Profiler.start');
    else stopAndWrite();
  });
} else {
  session.post('Profiler.start');
  process.on('exit', stopAndWrite);
}
