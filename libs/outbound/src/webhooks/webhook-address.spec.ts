import { createServer } from 'node:http';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BlockedAddressError, checkDestination, isPublicAddress, pinnedLookup } from './webhook-address';

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    '100.100.100.200',
    '0.0.0.0',
    '::',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '::7f00:1',
    '::a00:1',
    '::8.8.8.8',
    '64:ff9b::a00:1',
    '224.0.0.1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])('lets %s through', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('checkDestination', () => {
  it('refuses an IPv4-compatible IPv6 host as the URL parser writes it ([::127.0.0.1] is [::7f00:1])', async () => {
    await expect(checkDestination(new URL('http://[::127.0.0.1]/'), false)).rejects.toThrow(BlockedAddressError);
    await expect(checkDestination(new URL('http://[::a00:1]/'), false)).rejects.toThrow(BlockedAddressError);
  });

  it('gives up the lookup when the signal aborts (the request timeout), without waiting for the resolver', async () => {
    const started = Date.now();
    await expect(checkDestination(new URL('http://example.com/'), false, AbortSignal.abort(new Error('timed out')))).rejects.toThrow('timed out');
    expect(Date.now() - started).toBeLessThan(100);
  });

  it.each(['http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:127.0.0.1]/', 'http://169.254.169.254/latest/meta-data', 'http://[fd00::1]/', 'http://localhost:8080/'])(
    'refuses %s (the URL parser normalises every spelling of the host first)',
    async (url) => {
      await expect(checkDestination(new URL(url), false)).rejects.toThrow(BlockedAddressError);
    },
  );

  it('lets any address through when private networks are allowed, and answers the address it checked', async () => {
    await expect(checkDestination(new URL('http://2130706433:9/'), true)).resolves.toMatchObject({ address: '127.0.0.1', family: 4 });
  });

  it('connects to the checked address whatever the name would resolve to now', async () => {
    const server = createServer((_req, res) => res.end('pinned')).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      // The name does not resolve at all: only the pinned lookup can reach the server.
      const url = new URL(`http://no-such-host.invalid:${port}/`);
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(url, { lookup: pinnedLookup({ url, address: '127.0.0.1', family: 4 }) as never }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk)).on('end', () => resolve(text));
        });
        req.on('error', reject).end();
      });
      expect(body).toBe('pinned');
    } finally {
      server.close();
    }
  });
});
