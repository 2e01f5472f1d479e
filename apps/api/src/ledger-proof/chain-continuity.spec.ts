import { randomBytes } from 'node:crypto';
import { chainAppends, type LedgerEvent } from '@im/ledger-proof';
import { followChains, type SignedPositions, type StoredLink } from './chain-continuity';

const note = (i: number, content = `step ${i}`): LedgerEvent => ({
  specversion: '1.0',
  id: `e${i}`,
  source: 'im://t',
  type: 'im.incident.note',
  time: '2026-12-01T10:00:00Z',
  subject: 'incident/INC-1',
  data: { content },
});

/** A stream as the store keeps it, links from the ledger's own function. */
function stream(events: LedgerEvent[]): StoredLink[] {
  const { records } = chainAppends({}, events, () => randomBytes(16));
  return events.map((event, i) => ({ revision: i, id: String(event.id), event, ledger: records[i] }));
}

const NOW = '2026-12-01T12:00:00Z';
const signedAt = (links: StoredLink[], n: number): SignedPositions => ({ internal: new Map([[n, [{ hash: links[n - 1].ledger!.heads.internal!.hash, signedAt: NOW }]]]) });

describe('followChains', () => {
  const original = stream([1, 2, 3, 4].map((i) => note(i)));
  const forged = stream([note(1), note(2, 'nothing happened'), note(3), note(4)]);

  it('passes an untouched stream, from its start or from where it was verified, and says how far', () => {
    expect(followChains('INC-1', original, undefined, undefined, signedAt(original, 4), NOW)).toEqual({ through: { revision: 3, heads: original[3].ledger!.heads, at: NOW }, rewrites: [] });
    const verified = { revision: 1, heads: original[1].ledger!.heads, at: NOW };
    expect(followChains('INC-1', original.slice(1), verified, verified, {}, NOW).rewrites).toEqual([]);
  });

  it('finds a history rewritten with recomputed links: by the head signed before, or by the link verified before', () => {
    expect(followChains('INC-1', forged, undefined, undefined, signedAt(original, 3), NOW).rewrites).toContainEqual({
      incidentId: 'INC-1',
      chain: 'internal',
      n: 3,
      eventId: 'e3',
      reason: expect.stringContaining('the head signed at'),
    });
    const verified = { revision: 3, heads: original[3].ledger!.heads, at: NOW };
    expect(followChains('INC-1', forged.slice(3), verified, verified, {}, NOW)).toMatchObject({
      through: undefined,
      rewrites: expect.arrayContaining([expect.objectContaining({ chain: 'internal', n: 4, eventId: 'e4', reason: expect.stringContaining('is not the one verified') })]),
    });
  });

  it('finds a stored link that does not match its event, and a tail deleted after it was signed or verified', () => {
    const edited = original.map((link) => ({ ...link }));
    edited[1] = { ...edited[1], event: note(2, 'edited in place') };
    expect(followChains('INC-1', edited, undefined, undefined, {}, NOW).rewrites[0]).toMatchObject({ n: 2, eventId: 'e2', reason: expect.stringContaining('does not match its content') });
    expect(followChains('INC-1', original.slice(0, 2), undefined, undefined, signedAt(original, 4), NOW).rewrites).toContainEqual(
      expect.objectContaining({ chain: 'internal', n: 4, reason: expect.stringContaining('the chain ends at position 2') }),
    );
    const verified = { revision: 3, heads: original[3].ledger!.heads, at: NOW };
    expect(followChains('INC-1', [], verified, verified, {}, NOW).rewrites).toContainEqual(expect.objectContaining({ chain: 'internal', n: 4, reason: expect.stringContaining('its tail was deleted') }));
  });
});
