import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Algorithm, sign, type SignOptions } from 'jsonwebtoken';
import { EVENT_STORE, type EventStore } from '@im/event-store';
import { startTestApp, type TestApp } from '../support/app';
import { noteFor } from './campaign';

jest.setTimeout(60_000);

const ISSUER = 'https://idp.campaign.example';
const AUDIENCE = 'incident-service';
const KID = 'campaign-key-1';
const ALL_ROLES = ['timeline.writer', 'timeline.reader', 'timeline.exporter'];

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hour = () => Math.floor(Date.now() / 1000) + 3600;

/** The identity provider's key (published) and an attacker's key (not). */
const idp = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicPem = idp.publicKey.export({ type: 'spki', format: 'pem' }).toString();

const claims = (extra: Record<string, unknown> = {}) => ({ sub: 'mallory', roles: ALL_ROLES, clearance: 'confidential', data_access: ['pii'], ...extra });
const rs256 = (payload: object, key: KeyObject | string = idp.privateKey, options: SignOptions = {}) =>
  sign(payload, key, { algorithm: 'RS256' as Algorithm, keyid: KID, issuer: ISSUER, audience: AUDIENCE, expiresIn: '1h', ...options });

/** Tokens a caller must never get past the gate with; each is tried on every protected endpoint. */
const ATTACKS: [string, () => string][] = [
  ['alg none', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims(), iss: ISSUER, aud: AUDIENCE, exp: hour() })}.`],
  ['alg none, upper case', () => `${b64({ alg: 'NONE', typ: 'JWT', kid: KID })}.${b64({ ...claims(), iss: ISSUER, aud: AUDIENCE, exp: hour() })}.`],
  ['HS256 signed with the published RSA key as the secret (algorithm confusion)', () =>
    sign({ ...claims(), iss: ISSUER, aud: AUDIENCE }, publicPem, { algorithm: 'HS256', keyid: KID, expiresIn: '1h' })],
  ['signed by another key under the published kid', () => rs256(claims(), attacker.privateKey)],
  ['an unknown kid', () => rs256(claims(), attacker.privateKey, { keyid: 'attacker-key' })],
  ['a jku header pointing at the attacker', () => {
    const [, payload, signature] = rs256(claims(), attacker.privateKey).split('.');
    return `${b64({ alg: 'RS256', kid: KID, jku: 'http://127.0.0.1:1/attacker-jwks' })}.${payload}.${signature}`;
  }],
  ['kid path traversal', () => rs256(claims(), attacker.privateKey, { keyid: '../../../../dev/null' })],
  ['the signature stripped', () => rs256(claims()).split('.').slice(0, 2).join('.') + '.'],
  ['a valid token with its payload altered', () => {
    const [header, , signature] = rs256(claims({ roles: [] })).split('.');
    return `${header}.${b64({ ...claims(), iss: ISSUER, aud: AUDIENCE, exp: hour() })}.${signature}`;
  }],
  ['expired', () => rs256(claims(), idp.privateKey, { expiresIn: -60 })],
  ['not yet valid', () => rs256(claims(), idp.privateKey, { notBefore: 3600 })],
  ['no expiry at all', () => sign({ ...claims(), iss: ISSUER, aud: AUDIENCE }, idp.privateKey, { algorithm: 'RS256', keyid: KID })],
  ['a wrong issuer', () => rs256(claims(), idp.privateKey, { issuer: 'https://evil.example' })],
  ['a wrong audience', () => rs256(claims(), idp.privateKey, { audience: 'another-service' })],
  ['no sub', () => rs256(claims({ sub: undefined }))],
  ['an empty sub', () => rs256(claims({ sub: '  ' }))],
  ['roles as a string', () => rs256(claims({ roles: 'timeline.writer' }))],
  ['roles as objects', () => rs256(claims({ roles: [{ name: 'timeline.writer' }] }))],
  ['an unknown clearance', () => rs256(claims({ clearance: 'cosmic' }))],
  ['data_access as a string', () => rs256(claims({ data_access: 'pii' }))],
  ['an oversized token (11 KB, still under the header limit)', () => rs256(claims({ padding: 'x'.repeat(8000) }), attacker.privateKey)],
  ['random bytes', () => Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7919) % 256)).toString('base64url')],
  ['three dots of nothing', () => '..'],
];

interface Endpoint {
  name: string;
  call: (t: TestApp, authorization?: string) => Promise<{ status: number; body: unknown }>;
}

const withAuth = (authorization?: string) => (authorization === undefined ? {} : { authorization });

const ENDPOINTS = (incidentId: string): Endpoint[] => [
  { name: 'append', call: (t, a) => t.http().post('/api/v1/timeline/events').set({ ...withAuth(a), 'content-type': 'application/cloudevents+json' }).send(noteFor(incidentId).body) },
  { name: 'timeline read', call: (t, a) => t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set(withAuth(a)) },
  { name: 'cross-incident query', call: (t, a) => t.http().post('/api/v1/timeline/query').set(withAuth(a)).send({ actor: 'mallory' }) },
  { name: 'export', call: (t, a) => t.http().get(`/api/v1/incidents/${incidentId}/timeline/export`).set(withAuth(a)) },
  { name: 'incident REST (production)', call: (t, a) => t.http().post('/api/v1/incidents').set(withAuth(a)).send({ title: 'x', severity: 'SEV-1' }) },
  { name: 'GraphQL mutation', call: (t, a) => t.http().post('/api/v1/graphql').set(withAuth(a)).send({ query: `mutation { declareIncident(input: { title: "x", severity: SEV_1 }) { id } }` }) },
];

describe('JWT attack corpus (production mode, keys from a JWKS)', () => {
  let jwks: Server;
  let t: TestApp;
  let store: EventStore;
  let incidentId: string;
  let refused = 0;

  beforeAll(async () => {
    const jwk = { ...idp.publicKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' };
    jwks = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
    t = await startTestApp({ APP_ENV: 'production', JWT_JWKS_URL: jwksUrl, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE });
    store = t.app.get(EVENT_STORE);
    const created = await t.http().post('/api/v1/incidents').set({ authorization: `Bearer ${rs256(claims())}` }).send({ title: 'Target', severity: 'SEV-2' });
    expect(created.status).toBe(201);
    incidentId = created.body.id;
  });
  afterAll(async () => {
    console.info(`JWT attack corpus: ${refused} attacks refused (${ATTACKS.length} tokens x ${ENDPOINTS('x').length} endpoints, plus transport cases)`);
    await t.close();
    await new Promise((resolve) => jwks.close(resolve));
  });

  it('lets the genuine token through everywhere (so the refusals below mean something)', async () => {
    for (const endpoint of ENDPOINTS(incidentId)) {
      const res = await endpoint.call(t, `Bearer ${rs256(claims())}`);
      expect({ endpoint: endpoint.name, status: res.status }).toEqual({ endpoint: endpoint.name, status: expect.any(Number) });
      expect(res.status).toBeLessThan(400);
    }
  });

  it.each(ATTACKS)('refuses %s with 401 on every endpoint, and nothing is stored', async (_, forge) => {
    const jwt = forge();
    const before = await store.headPosition();
    for (const endpoint of ENDPOINTS(incidentId)) {
      const res = await endpoint.call(t, `Bearer ${jwt}`);
      expect({ endpoint: endpoint.name, status: res.status }).toEqual({ endpoint: endpoint.name, status: 401 });
      if (endpoint.name.startsWith('GraphQL')) {
        expect((res.body as { errors: { extensions: { code: string } }[] }).errors[0].extensions.code).toBe('UNAUTHENTICATED');
      } else expect(res.body).toEqual({ error: expect.any(String), status: 401 });
      refused++;
    }
    expect(await store.headPosition()).toBe(before);
  });

  it('ignores a token offered anywhere but the Authorization header', async () => {
    const jwt = rs256(claims());
    const before = await store.headPosition();
    for (const res of [
      await t.http().get(`/api/v1/incidents/${incidentId}/timeline?access_token=${jwt}`),
      await t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set({ cookie: `token=${jwt}` }),
      await t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set({ 'x-access-token': jwt }),
      await t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set({ authorization: `Token ${jwt}` }),
    ]) {
      expect(res.status).toBe(401);
      refused++;
    }
    expect(await store.headPosition()).toBe(before);
  });

  it('refuses a token too large for the headers with 431 before any route runs', async () => {
    const res = await t.http().get(`/api/v1/incidents/${incidentId}/timeline`).set({ authorization: `Bearer ${'a'.repeat(20_000)}` });
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ error: 'The request headers are larger than 16 KiB', status: 431 });
    refused++;
  });

  it('gives a valid token without the role 403, not 401', async () => {
    const res = await t.http().post('/api/v1/timeline/events').set({ authorization: `Bearer ${rs256(claims({ roles: ['timeline.reader'] }))}`, 'content-type': 'application/cloudevents+json' }).send(noteFor(incidentId).body);
    expect(res.status).toBe(403);
  });
});
