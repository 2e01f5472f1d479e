/**
 * `node -r` this (through NODE_OPTIONS, which does not take --cpu-prof in
 * Node 20): profiles the process from start to exit with the inspector and
 * writes `<BENCH_CPU_PROF_DIR>/<pid>.cpuprofile`, as --cpu-prof would.
 */
const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.start');
// A session on its own thread answers synchronously, so this works in 'exit'.
process.on('exit', () =>
  session.post('Profiler.stop', (error, result) => {
    if (!error) writeFileSync(join(process.env.BENCH_CPU_PROF_DIR, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  }),
);
