import type { CloudEvent } from '@im/cloudevents';
import { ForbiddenError } from '@im/incidents';
import type { Principal } from '@im/access';
import { attributed, attributedItem, RELAY_ROLE } from './event-attribution';

const note = (fields: Partial<CloudEvent> = {}): CloudEvent => ({
  specversion: '1.0',
  id: 'n1',
  source: 'im://test',
  type: 'im.incident.note',
  time: '2026-11-23T10:00:00Z',
  data: { content: 'rolled back' },
  ...fields,
});
const writer = (sub: string, roles: string[] = ['timeline.writer'], integrationKey?: string): Principal => ({
  sub,
  roles,
  clearance: 'internal',
  dataAccess: [],
  authenticated: true,
  ...(integrationKey ? { integrationKey } : {}),
});

describe('who wrote an event', () => {
  it('records the token holder as the sender, beside the actor the event claims', () => {
    expect(attributed(note(), writer('alice'))).toEqual(note({ data: { content: 'rolled back', 'im.sender': 'alice' } }));
    expect(attributed(note({ 'im.actor': 'alice' }), writer('alice')).data).toEqual({ content: 'rolled back', 'im.sender': 'alice' });
  });

  it('refuses, with 403 naming the rule, a plain writer that claims another actor', () => {
    expect(() => attributed(note({ 'im.actor': 'mallory' }), writer('alice'))).toThrow(ForbiddenError);
    expect(() => attributed(note({ 'im.actor': 'mallory' }), writer('alice'))).toThrow(
      `im.actor "mallory" is not you (alice): only a token with role ${RELAY_ROLE} may write in another's name; leave im.actor out or set it to "alice"`,
    );
  });

  it('lets a relay claim the person it relays, and records the relay as the sender', () => {
    const relayed = attributed(note({ 'im.actor': 'mallory' }), writer('chat-bridge', ['timeline.writer', RELAY_ROLE]));
    expect(relayed['im.actor']).toBe('mallory');
    expect(relayed.data).toEqual({ content: 'rolled back', 'im.sender': 'chat-bridge' });
  });

  it('replaces a sender the writer put in the event itself', () => {
    const forged = note({ data: { content: 'x', 'im.sender': 'bob' }, ...({ 'im.sender': 'carol' } as object) });
    const stored = attributed(forged, writer('alice')) as unknown as Record<string, unknown>;
    expect(stored.data).toEqual({ content: 'x', 'im.sender': 'alice' });
    expect(stored).not.toHaveProperty(['im.sender']);
  });

  it("names an integration key as both actor and sender, whatever the event claims", () => {
    const stored = attributed(note({ 'im.actor': 'mallory' }), writer('integration:k1', ['timeline.writer'], 'k1'));
    expect(stored['im.actor']).toBe('integration:k1');
    expect(stored.data).toEqual({ content: 'rolled back', 'im.sender': 'integration:k1' });
  });

  it('records the sender of binary data (data_base64) as an attribute: such an event has no data to hold it', () => {
    const binary = note({ data: undefined, datacontenttype: 'text/plain', data_base64: 'aGVsbG8=' });
    delete binary.data;
    expect(attributed(binary, writer('alice'))).toEqual({ ...binary, 'im.sender': 'alice' });
  });

  it('refuses one event of a batch alone', () => {
    const [refused, kept] = [note({ 'im.actor': 'mallory' }), note()].map((event) => attributedItem({ event }, writer('alice')));
    expect(refused).toEqual({ refused: expect.any(ForbiddenError) });
    expect(kept).toEqual({ event: note({ data: { content: 'rolled back', 'im.sender': 'alice' } }) });
  });
});
