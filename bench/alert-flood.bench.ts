import { randomUUID } from 'node:crypto';
import { startTestApp } from '../test/support/app';
import { bearer, token } from '../test/support/tokens';

/**
 * A flood of alerts on one fingerprint (issue 13): alerts/s over the first
 * alerts and again after the incident holds THRESHOLD of them (after a
 * warm-up on another fingerprint). Routing and deciding must not slow down as
 * the incident grows.
 * Run: npx ts-node --transpile-only -r tsconfig-paths/register bench/alert-flood.bench.ts
 */
const THRESHOLD = Number(process.env.FLOOD_ALERTS ?? 4000);
const SAMPLE = 500;
const CONNECTIONS = Number(process.env.FLOOD_CONNECTIONS ?? 8);

async function main() {
  const t = await startTestApp();
  await t.app.listen(0, '127.0.0.1');
  const url = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
  const headers = { ...bearer(token({ sub: 'flood' })), 'content-type': 'application/cloudevents+json' };
  let fingerprint = `warm-up-${randomUUID()}`;
  const alert = () =>
    fetch(`${url}/api/v1/timeline/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        specversion: '1.0', id: randomUUID(), source: 'im://bench', type: 'im.alert.trigger',
        time: new Date().toISOString(), 'im.fingerprint': fingerprint, data: { title: 'Disk full' },
      }),
    }).then(async (res) => {
      if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
    });
  /** Sends `count` alerts over CONNECTIONS concurrent clients; answers alerts/s. */
  const send = async (count: number) => {
    let left = count;
    const started = process.hrtime.bigint();
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (left-- > 0) await alert();
    }));
    return Math.round(count / (Number(process.hrtime.bigint() - started) / 1e9));
  };
  try {
    await send(SAMPLE);
    fingerprint = `flood-${randomUUID()}`;
    const start = await send(SAMPLE);
    await send(THRESHOLD - SAMPLE);
    const after = await send(SAMPLE);
    console.log(`alerts/s on one fingerprint, ${CONNECTIONS} clients: first ${SAMPLE}: ${start}; after ${THRESHOLD}: ${after}`);
  } finally {
    await t.close();
  }
}

void main();
