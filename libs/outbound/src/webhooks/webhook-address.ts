import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The destination a delivery connects to: the address that was checked, never a second lookup. */
export interface CheckedDestination {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** The url's host is, or resolves to, an address a webhook may not reach. */
export class BlockedAddressError extends Error {}

/**
 * IPv4-compatible IPv6 (::/96, deprecated by RFC 4291): ipaddr.js calls
 * `::7f00:1` unicast, yet it embeds 127.0.0.1 (and it reads `::8.8.8.8` as
 * IPv4-mapped). Node's own parser decides membership, in every spelling.
 */
const IPV4_COMPATIBLE = new BlockList();
IPV4_COMPATIBLE.addSubnet('::', 96, 'ipv6');

/**
 * Whether a webhook may reach this IP address. ipaddr.js reads every spelling
 * (dotted, decimal, hex, octal, IPv4-mapped IPv6) and names its range; only
 * the global `unicast` range passes. Loopback, private, link-local (with the
 * cloud metadata address 169.254.169.254), unique-local (fd00:ec2::254),
 * carrier-grade NAT (100.100.100.200), unspecified, multicast, reserved,
 * IPv4-compatible IPv6 and the IPv6 ranges that embed an IPv4 address
 * (NAT64, 6to4, Teredo) do not.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  if (isIP(address) === 6 && IPV4_COMPATIBLE.check(address, 'ipv6')) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** The host of a parsed URL as an address or name: IPv6 without its brackets. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Where a delivery to `url` may connect: the host's address, checked. A name
 * is resolved once; if any of its addresses is refused, the url is (a name
 * that answers both a public and a private address could pick either).
 * With `allowPrivate` (WEBHOOK_ALLOW_PRIVATE_NETWORKS) any address passes.
 * `signal` bounds the lookup (the request's timeout): a resolver that does
 * not answer cannot hold a delivery longer than the request itself may take.
 */
export async function checkDestination(url: URL, allowPrivate: boolean, signal?: AbortSignal): Promise<CheckedDestination> {
  const literal = checkLiteralDestination(url, allowPrivate);
  if (literal) return literal;
  return checked(url, await resolveAll(hostOf(url), signal), allowPrivate);
}

/** checkDestination of a url whose host is an IP address (no lookup, so no wait); undefined for a name. */
export function checkLiteralDestination(url: URL, allowPrivate: boolean): CheckedDestination | undefined {
  const host = hostOf(url);
  const family = isIP(host);
  return family ? checked(url, [{ address: host, family }], allowPrivate) : undefined;
}

function checked(url: URL, addresses: LookupAddress[], allowPrivate: boolean): CheckedDestination {
  const refused = allowPrivate ? undefined : addresses.find(({ address }) => !isPublicAddress(address));
  if (refused || addresses.length === 0) {
    const literal = isIP(hostOf(url)) !== 0;
    throw new BlockedAddressError(`${url.hostname} ${literal ? 'is' : `resolves to ${refused?.address ?? 'no address'}, which is`} not a public address`);
  }
  return { url, address: addresses[0].address, family: addresses[0].family as 4 | 6 };
}

/** Every address of the name, or the signal's reason once it aborts (the lookup itself cannot be cancelled; its answer is dropped). */
function resolveAll(host: string, signal: AbortSignal | undefined): Promise<LookupAddress[]> {
  const resolving = lookup(host, { all: true, verbatim: true });
  if (!signal) return resolving;
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    resolving.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The `lookup` option of http(s).request that answers the checked address
 * whatever the name resolves to by now: DNS cannot change between the check
 * and the connection. (Node asks for `all` when it may try several families.)
 */
export const pinnedLookup =
  ({ address, family }: CheckedDestination) =>
  (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
