import { execFileSync } from 'node:child_process';
import { createECDH, type ECDH, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './temp-dir';

// http_ece (RFC 8188/8291, by the Web Push authors) ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ece = require('http_ece') as { decrypt(body: Buffer, params: { version: string; privateKey: ECDH; authSecret: Buffer }): Buffer };

/** A browser's side of a subscription: the P-256 key pair and auth secret it would keep, and what it registers. */
export class PushClient {
  readonly ecdh = createECDH('prime256v1');
  readonly authSecret = randomBytes(16);

  constructor(readonly endpoint: string) {
    this.ecdh.generateKeys();
  }

  get subscription() {
    return { endpoint: this.endpoint, keys: { p256dh: this.ecdh.getPublicKey().toString('base64url'), auth: this.authSecret.toString('base64url') } };
  }

  /** The message as the browser reads it: decrypted with this subscription's keys. */
  decrypt(body: Buffer): unknown {
    return JSON.parse(ece.decrypt(body, { version: 'aes128gcm', privateKey: this.ecdh, authSecret: this.authSecret }).toString('utf8'));
  }
}

export interface PushRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * A push service (RFC 8030) on https://127.0.0.1 with a self-signed
 * certificate made by openssl for 127.0.0.1; the service under test trusts it
 * through NODE_EXTRA_CA_CERTS=`certFile`. Answers 201, or what `answer` says.
 */
export class PushService {
  readonly requests: PushRequest[] = [];
  answer: (request: PushRequest) => number = () => 201;
  /** Paths whose answer never ends: a 201, then a byte every 200 ms, as a slow or hostile service could send. */
  readonly trickling = new Set<string>();
  readonly certFile: string;
  private readonly keyFile: string;
  private readonly dir = tempDir('push-service');
  private server?: Server;
  url = '';

  constructor() {
    this.certFile = join(this.dir.path, 'cert.pem');
    this.keyFile = join(this.dir.path, 'key.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', this.keyFile, '-out', this.certFile,
    ], { stdio: 'ignore' });
  }

  async start(): Promise<string> {
    const server = createServer({ cert: readFileSync(this.certFile), key: readFileSync(this.keyFile) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        this.requests.push(request);
        if (this.trickling.has(request.path)) {
          res.writeHead(201);
          const dripping = setInterval(() => res.write(' '), 200);
          res.on('close', () => clearInterval(dripping));
          return;
        }
        res.statusCode = this.answer(request);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    this.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.dir.remove();
  }

  async waitFor(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > until) throw new Error(`timed out waiting for push requests; received ${this.requests.length}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
