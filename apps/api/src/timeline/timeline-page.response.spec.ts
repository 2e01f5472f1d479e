import type { FastifyReply } from 'fastify';
import type { ShownRow } from '@im/access';
import { timelinePageJson } from './timeline-page.response';

const reply = () => {
  const headers: Record<string, string> = {};
  return { headers, reply: { header: (name: string, value: string) => (headers[name] = value) } as unknown as FastifyReply };
};
const shown = (view: object) => ({ viewJson: JSON.stringify(view) }) as ShownRow;

describe('timelinePageJson', () => {
  it('answers exactly the UTF-8 of JSON.stringify of the page, whatever its views hold', () => {
    const views = [{ id: 'a', content: 'plain' }, { id: 'b', content: 'Störung – 障害 🚨', data: { note: 'ünïcode' } }, { id: 'c', content: '"quoted"\n' }];
    const { headers, reply: r } = reply();
    const body = timelinePageJson(r, { shown: views.map(shown), nextCursor: 'cursor-Ω' });
    expect(body.equals(Buffer.from(JSON.stringify({ events: views, next_cursor: 'cursor-Ω' })))).toBe(true);
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers an empty last page', () => {
    const body = timelinePageJson(reply().reply, { shown: [], nextCursor: null });
    expect(body.toString()).toBe('{"events":[],"next_cursor":null}');
  });
});
