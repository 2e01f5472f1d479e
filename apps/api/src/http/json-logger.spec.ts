import type { DestinationStream } from 'pino';
import { accessLogger, createJsonLogger } from './json-logger';

/** The lines a logger wrote, parsed. */
function capture(): { destination: DestinationStream; lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  return { destination: { write: (line: string) => written.push(line) }, lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('the JSON logger', () => {
  it('censors credentials in what the service logs, at any depth the paths name', () => {
    const { destination, lines } = capture();
    const logger = createJsonLogger('info', destination);
    logger.info({ secret: 'whsec_top', webhook: { secret: 'whsec_nested', url: 'https://example.com/hook' }, req: { headers: { authorization: 'Bearer abc' } } }, 'registered');
    const [line] = lines();
    expect(line).toMatchObject({ level: 'info', msg: 'registered', secret: '[REDACTED]', webhook: { secret: '[REDACTED]', url: 'https://example.com/hook' }, req: { headers: { authorization: '[REDACTED]' } } });
    expect(JSON.stringify(lines())).not.toMatch(/whsec_|Bearer/);
  });

  it('writes access lines in the same shape, at the same level, through the access logger', () => {
    const { destination, lines } = capture();
    const logger = createJsonLogger('info', destination);
    const access = accessLogger(logger);
    access.info({ request_id: 'req-1', method: 'GET', url: '/api/v1/incidents', status: 200, duration_ms: 1.5, sub: 'ops' }, 'request completed');
    expect(lines()).toEqual([
      { level: 'info', time: expect.any(String), service: 'incident-service', pid: process.pid, request_id: 'req-1', method: 'GET', url: '/api/v1/incidents', status: 200, duration_ms: 1.5, sub: 'ops', msg: 'request completed' },
    ]);
    const quiet = capture();
    accessLogger(createJsonLogger('warn', quiet.destination)).info({ request_id: 'req-2' }, 'request completed');
    expect(quiet.lines()).toEqual([]);
  });
});
