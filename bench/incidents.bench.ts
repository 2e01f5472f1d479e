import { formatRow, load, TABLE_HEAD, withBuiltServer } from './support/load';

const CREATE = { title: 'Checkout is down', severity: 'SEV-1' };

/** The built api on a fresh DATA_DIR: incident create, and create followed by ack, at 32 connections. */
export async function incidentWrites(seconds: number): Promise<string> {
  return withBuiltServer('bench-incidents', {}, async (url) => {
    const create = await load({
      url: `${url}/api/v1/incidents`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(CREATE),
      duration: seconds,
    });
    // Each connection alternates: create an incident, then ack the one it just created.
    const createAck = await load({
      url,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          path: '/api/v1/incidents',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(CREATE),
          onResponse: (status, body, context) => {
            if (status === 201) (context as { id?: string }).id = JSON.parse(body).id;
          },
        },
        {
          method: 'POST',
          setupRequest: (request, context) => ({ ...request, path: `/api/v1/incidents/${(context as { id?: string }).id}/ack` }),
        },
      ],
    });
    const list = await load({ url: `${url}/api/v1/incidents?limit=50`, duration: seconds });
    return [
      '## Incident REST on the embedded store',
      '',
      `The built api (\`node dist/apps/api/main.js\`, SQLite WAL, synchronous=FULL), fresh DATA_DIR, ${seconds} s each at 32 connections (\`bench/incidents.bench.ts\`). Every write answers after its event is on disk and the read model shows it.`,
      '',
      ...TABLE_HEAD,
      formatRow('POST /api/v1/incidents (create)', create),
      formatRow('create, then ack it (requests of both kinds)', createAck),
      formatRow('GET /api/v1/incidents?limit=50', list),
    ].join('\n');
  });
}
