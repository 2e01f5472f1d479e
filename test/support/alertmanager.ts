import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real Prometheus Alertmanager (Debian `prometheus-alertmanager`, 0.25) for one test.
 *
 *   const skip = alertmanagerSkipReason();            // throws when CI is set and the binary is absent
 *   if (skip) console.info(skip);
 *   (skip ? describe.skip : describe)('alertmanager', () => {
 *     let am: Alertmanager;
 *     beforeAll(async () => { am = await startAlertmanager({ webhookUrl, bearer: key }); });
 *     afterAll(() => am.stop());
 *     it('…', async () => {
 *       await am.fire([{ labels: { alertname: 'DiskFull', severity: 'critical' } }]);
 *       await am.resolve([{ alertname: 'DiskFull', severity: 'critical' }]);
 *       expect((await am.metrics()).notifications).toBeGreaterThan(0);
 *     });
 *   });
 *
 * Its observed behaviour (payload, headers, re-sends, retries, metrics) is written
 * down in docs/alert-sources.md.
 */

export const ALERTMANAGER_BINARY = process.env.ALERTMANAGER_BINARY ?? '/usr/bin/prometheus-alertmanager';
export const AMTOOL_BINARY = process.env.AMTOOL_BINARY ?? '/usr/bin/amtool';

export const ALERTMANAGER_SKIPPED =
  'skipped: prometheus-alertmanager is not installed (apt-get install prometheus-alertmanager)';

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Undefined when a real Alertmanager can be started; otherwise the reason a test
 * must give for skipping. With `CI` set, an absent binary throws instead: CI never skips.
 */
export function alertmanagerSkipReason(binary = ALERTMANAGER_BINARY): string | undefined {
  if (executable(binary)) return undefined;
  if (process.env.CI) {
    throw new Error(`${binary} is missing and CI is set: CI never skips the Alertmanager tests (.ci/run installs prometheus-alertmanager)`);
  }
  return ALERTMANAGER_SKIPPED;
}

export interface AlertmanagerOptions {
  /** Where the webhook receiver sends its notifications. */
  webhookUrl: string;
  /** Sent as `Authorization: Bearer <bearer>` (http_config.authorization); none when omitted. */
  bearer?: string;
  /** Receiver name: it is the payload's `receiver` (and the service's `source`). Default `im`. */
  receiver?: string;
  /** Route timings, Alertmanager durations ("1s", "500ms"). Defaults: 0s / 1s / 2s. */
  groupWait?: string;
  groupInterval?: string;
  repeatInterval?: string;
  /** Route group_by. Default ['alertname']; ['...'] groups by every label. */
  groupBy?: string[];
  /** Default true. */
  sendResolved?: boolean;
  /** webhook_configs[].max_alerts (0: all, the default). */
  maxAlerts?: number;
  /** global.resolve_timeout (default Alertmanager's 5m). */
  resolveTimeout?: string;
  /** --web.external-url; the payload's externalURL. Default http://127.0.0.1:<port>. */
  externalUrl?: string;
  binary?: string;
  /** How long to wait for /-/ready. Default 15 s. */
  startTimeoutMs?: number;
  /** Extra command-line flags. */
  args?: string[];
}

/** What is posted to `POST /api/v2/alerts` (postableAlert). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
}

export interface AlertmanagerMetrics {
  /** alertmanager_notifications_total{integration="webhook"}: notifications attempted (once per flush, retries not counted). */
  notifications: number;
  /** alertmanager_notifications_failed_total{integration="webhook"}: notifications given up on (all retries failed, or an unretryable answer). */
  failed: number;
  /** alertmanager_notification_requests_total{integration="webhook"}: HTTP requests sent, retries included. */
  requests: number;
  /** alertmanager_notification_requests_failed_total{integration="webhook"}: HTTP requests that failed. */
  requestsFailed: number;
  /** Every sample of /metrics, by its full name with labels (`name{a="b"}`). */
  raw: Map<string, number>;
}

export interface Alertmanager {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  configFile: string;
  storageDir: string;
  receiver: string;
  /** Posts alerts as given (no defaults added). Throws on a non-2xx answer. */
  post(alerts: PostableAlert[]): Promise<void>;
  /**
   * Fires alerts: startsAt defaults to now, and the startsAt used for each label set
   * is remembered so that resolve() refers to the same alert.
   */
  fire(alerts: PostableAlert[]): Promise<void>;
  /**
   * Resolves alerts by label set (or full alert): the alert as fired (same startsAt, annotations,
   * generatorURL) with endsAt one second in the past. Pass a full PostableAlert to override any of them.
   */
  resolve(alerts: Array<Record<string, string> | PostableAlert>): Promise<void>;
  /** GET /api/v2/alerts (what Alertmanager currently holds). */
  alerts(): Promise<unknown[]>;
  /** The webhook integration's counters from /metrics. */
  metrics(): Promise<AlertmanagerMetrics>;
  /** Polls metrics() until the predicate holds (default timeout 15 s). */
  waitForMetrics(predicate: (m: AlertmanagerMetrics) => boolean, timeoutMs?: number): Promise<AlertmanagerMetrics>;
  /** Runs amtool against this instance (`--alertmanager.url` added). */
  amtool(args: string[]): { status: number | null; stdout: string; stderr: string };
  /** Alertmanager's own log so far. */
  output(): string;
  /** Kills it, waits for the exit, removes its files. Safe to call twice. */
  stop(): Promise<void>;
}

/** A port that was free a moment ago (Alertmanager needs a number, it cannot take :0 and report). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The Alertmanager configuration the harness writes (JSON, which is YAML). */
export function alertmanagerConfig(options: AlertmanagerOptions): Record<string, unknown> {
  const receiver = options.receiver ?? 'im';
  const webhook: Record<string, unknown> = {
    url: options.webhookUrl,
    send_resolved: options.sendResolved ?? true,
  };
  if (options.bearer !== undefined) webhook.http_config = { authorization: { type: 'Bearer', credentials: options.bearer } };
  if (options.maxAlerts !== undefined) webhook.max_alerts = options.maxAlerts;
  return {
    ...(options.resolveTimeout ? { global: { resolve_timeout: options.resolveTimeout } } : {}),
    route: {
      receiver,
      group_by: options.groupBy ?? ['alertname'],
      group_wait: options.groupWait ?? '0s',
      group_interval: options.groupInterval ?? '1s',
      repeat_interval: options.repeatInterval ?? '2s',
    },
    receivers: [{ name: receiver, webhook_configs: [webhook] }],
  };
}

/** Parses the Prometheus text format into `name{labels}` → value. */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = line.match(/^(\S+?(?:\{.*\})?)\s+(\S+)(?:\s+\d+)?$/);
    if (match) samples.set(match[1], Number(match[2]));
  }
  return samples;
}

/** Sum of the samples of one metric whose labels include integration="webhook". */
function webhookCounter(samples: Map<string, number>, name: string): number {
  let total = 0;
  for (const [key, value] of samples) {
    if ((key === name || key.startsWith(`${name}{`)) && key.includes('integration="webhook"')) total += value;
  }
  return total;
}

const labelKey = (labels: Record<string, string>) =>
  JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a real Alertmanager with one webhook receiver and waits until it is ready.
 * Throws with the skip reason when the binary is absent (call alertmanagerSkipReason() first
 * to skip cleanly), and with its log when it does not become ready.
 */
export async function startAlertmanager(options: AlertmanagerOptions): Promise<Alertmanager> {
  const binary = options.binary ?? ALERTMANAGER_BINARY;
  const skip = alertmanagerSkipReason(binary);
  if (skip) throw new Error(skip);
  const receiver = options.receiver ?? 'im';
  const timeoutMs = options.startTimeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;

  for (let attempt = 1; ; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'im-alertmanager-'));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const configFile = join(dir, 'alertmanager.yml');
    const storageDir = join(dir, 'data');
    writeFileSync(configFile, JSON.stringify(alertmanagerConfig(options), null, 2));
    const child = spawn(
      binary,
      [
        `--config.file=${configFile}`,
        `--storage.path=${storageDir}`,
        `--web.listen-address=127.0.0.1:${port}`,
        `--web.external-url=${options.externalUrl ?? url}`,
        '--cluster.listen-address=',
        '--log.level=debug',
        ...(options.args ?? []),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    const onData = (chunk: Buffer) => {
      if (log.length < 4 * 1024 * 1024) log += chunk.toString();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    let exitedWith: string | undefined;
    const exited = new Promise<void>((resolve) =>
      child.once('exit', (code, signal) => {
        exitedWith = String(signal ?? code);
        resolve();
      }),
    );
    child.once('error', (err) => {
      log += `\nspawn error: ${err.message}`;
    });

    const stop = makeStop(child, exited, dir);
    try {
      while (exitedWith === undefined) {
        if (Date.now() > deadline) throw new Error(`Alertmanager was not ready at ${url}/-/ready within ${timeoutMs} ms:\n${log}`);
        try {
          const res = await fetch(`${url}/-/ready`);
          if (res.ok) break;
        } catch {
          // not listening yet
        }
        await sleep(50);
      }
      if (exitedWith !== undefined) {
        // Most likely the port was taken between freePort() and the bind: try another one.
        if (attempt < 3 && /address already in use/.test(log)) {
          await stop();
          continue;
        }
        throw new Error(`Alertmanager exited (${exitedWith}) before it was ready:\n${log}`);
      }
    } catch (err) {
      await stop();
      throw err;
    }
    return makeHandle({ url, port, configFile, storageDir, receiver, log: () => log, stop });
  }
}

function makeStop(child: ChildProcess, exited: Promise<void>, dir: string): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killed = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
        if (!killed) {
          child.kill('SIGKILL');
          await exited;
        }
      }
      rmSync(dir, { recursive: true, force: true });
    })());
}

function makeHandle(p: {
  url: string;
  port: number;
  configFile: string;
  storageDir: string;
  receiver: string;
  log: () => string;
  stop: () => Promise<void>;
}): Alertmanager {
  /** The last alert fired per label set, so that resolve() re-sends it whole (as Prometheus does). */
  const firedByLabels = new Map<string, PostableAlert & { startsAt: string }>();

  const post = async (alerts: PostableAlert[]) => {
    const res = await fetch(`${p.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(alerts),
    });
    if (!res.ok) throw new Error(`POST ${p.url}/api/v2/alerts answered ${res.status}: ${await res.text()}`);
  };

  const metrics = async (): Promise<AlertmanagerMetrics> => {
    const res = await fetch(`${p.url}/metrics`);
    const raw = parseMetrics(await res.text());
    return {
      notifications: webhookCounter(raw, 'alertmanager_notifications_total'),
      failed: webhookCounter(raw, 'alertmanager_notifications_failed_total'),
      requests: webhookCounter(raw, 'alertmanager_notification_requests_total'),
      requestsFailed: webhookCounter(raw, 'alertmanager_notification_requests_failed_total'),
      raw,
    };
  };

  return {
    url: p.url,
    port: p.port,
    configFile: p.configFile,
    storageDir: p.storageDir,
    receiver: p.receiver,
    post,
    fire: async (alerts) => {
      const now = new Date().toISOString();
      const prepared = alerts.map((a) => {
        const key = labelKey(a.labels);
        const alert = { ...a, startsAt: a.startsAt ?? firedByLabels.get(key)?.startsAt ?? now };
        firedByLabels.set(key, alert);
        return alert;
      });
      await post(prepared);
    },
    resolve: async (alerts) => {
      const endsAt = new Date(Date.now() - 1_000).toISOString();
      const prepared = alerts.map((a) => {
        const given: PostableAlert =
          'labels' in a && typeof a.labels === 'object' ? (a as PostableAlert) : { labels: a as Record<string, string> };
        // Alertmanager keeps the annotations and generatorURL of the latest post: a bare label set
        // would resolve with `annotations: {}` and `generatorURL: ""`, so the fired alert is re-sent whole.
        const fired = firedByLabels.get(labelKey(given.labels));
        return { ...fired, ...given, endsAt: given.endsAt ?? endsAt };
      });
      await post(prepared);
    },
    alerts: async () => {
      const res = await fetch(`${p.url}/api/v2/alerts`);
      return (await res.json()) as unknown[];
    },
    metrics,
    waitForMetrics: async (predicate, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = await metrics();
        if (predicate(m)) return m;
        if (Date.now() > deadline) {
          throw new Error(`Alertmanager metrics did not reach the expected state within ${timeoutMs} ms: ${JSON.stringify({ ...m, raw: undefined })}`);
        }
        await sleep(100);
      }
    },
    amtool: (args) => {
      const result = spawnSync(AMTOOL_BINARY, [...args, `--alertmanager.url=${p.url}`], { encoding: 'utf8', timeout: 30_000 });
      return { status: result.status, stdout: result.stdout, stderr: result.stderr };
    },
    output: p.log,
    stop: p.stop,
  };
}
