/**
 * `node -r` this (bench/profile.ts with `--sql`): times every better-sqlite3
 * statement call (run, get, all, iterate) of the process, by statement text,
 * from a first SIGUSR2 to a second, then writes
 * `<BENCH_CPU_PROF_DIR>/<pid>.sqltime.json` as [text, nanoseconds, calls].
 * A CPU profile shows the native calls as one `run` or `all`; this says which
 * statement they were.
 */
const Database = require('better-sqlite3');
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const probe = new Database(':memory:');
const Statement = Object.getPrototypeOf(probe.prepare('SELECT 1'));
probe.close();

let timing = false;
const totals = new Map();
/** Each statement's text on one line, worked out once: the bookkeeping stays out of the timed call and cheap beside it. */
const texts = new WeakMap();
const textOf = (statement) => {
  let text = texts.get(statement);
  if (text === undefined) texts.set(statement, (text = statement.source.replace(/\s+/g, ' ').trim()));
  return text;
};
for (const method of ['run', 'get', 'all', 'iterate']) {
  const call = Statement[method];
  Statement[method] = function timed(...args) {
    if (!timing) return call.apply(this, args);
    const start = process.hrtime.bigint();
    try {
      return call.apply(this, args);
    } finally {
      const elapsed = process.hrtime.bigint() - start;
      const key = `${method} ${textOf(this)}`;
      const total = totals.get(key) ?? [0n, 0];
      total[0] += elapsed;
      total[1] += 1;
      totals.set(key, total);
    }
  };
}

process.on('SIGUSR2', () => {
  timing = !timing;
  if (timing) {
    totals.clear();
    return;
  }
  const rows = [...totals].map(([text, [ns, calls]]) => [text, Number(ns), calls]);
  writeFileSync(join(process.env.BENCH_CPU_PROF_DIR, `${process.pid}.sqltime.json`), JSON.stringify(rows));
});
