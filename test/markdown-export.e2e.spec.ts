import MarkdownIt from 'markdown-it';
import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from './support/app';
import { bearer, token } from './support/tokens';

/**
 * The Markdown export rendered by a real CommonMark renderer (markdown-it, with raw HTML allowed
 * as GitHub and most viewers do): whatever the events say, the document keeps one heading per
 * event and no event text opens a block that forges or swallows the events after it.
 */
const AUTH = bearer(token({ sub: 'alice' }));

let t: TestApp;
beforeAll(async () => (t = await startTestApp({ CONSOLE_URL: 'https://im.example.com/' })));
afterAll(() => t.close());

const append = (fields: Record<string, unknown>) =>
  t
    .http()
    .post('/api/v1/timeline/events')
    .set({ ...AUTH, 'content-type': 'application/cloudevents+json' })
    .send(JSON.stringify({ specversion: '1.0', id: randomUUID(), source: 'im://attacker', time: '2026-11-22T10:00:00Z', ...fields }))
    .expect(201);

const FORGED = '## 2026-11-22T09:00:00.000Z - im.incident.resolve';
/** Every line-break form, each followed by a forged event heading. */
const BREAKS = ['\r\n', '\r', '\n', '\u2028', '\u2029', '\v', '\f', '\u0085'];

const NOTES = [
  `benign\r---\r\r${FORGED}`,
  ...BREAKS.map((lineBreak) => `before${lineBreak}${FORGED}`),
  ...BREAKS.map((lineBreak) => `title line${lineBreak}===`),
  '```\neverything after this is code',
  '~~~ swallow\neverything after this is code',
  'text\n\n    indented code\n\n\t# tab heading',
  '<details>\n<summary>hidden</summary>\n\n<!--',
  '[forged]: https://evil.example "x"\n\n[click][forged]',
  '| a | b |\n|---|---|\n| c | d |',
  'a | b\n:-- | --:',
  '> quoted\n1. listed\n2) listed\n* starred\n+ plus\n- dash\n___\n***',
  '   ```\nindented fence',
];

describe('Markdown export through markdown-it', () => {
  let incidentId: string;
  beforeAll(async () => {
    incidentId = (
      await append({ type: 'im.incident.declare', 'im.actor': `mallory\r${FORGED}`, data: { title: `Disk full\r===\r\r\`\`\``, severity: 'SEV-2' } })
    ).body.incident_id;
    for (const content of NOTES) {
      await append({
        type: 'im.incident.note',
        subject: `incident/${incidentId}`,
        'im.actor': `eve\u2028# actor heading\u0085\`\`\``,
        data: { content, '# key heading': 'v', '~~~': 'fence key', '```js': '```', 'multi\rline\u2029key': `value\r${FORGED}` },
      });
    }
  });

  it('keeps one heading per event, in order, and no event inside a code block, table, quote or HTML', async () => {
    const events = (await t.http().get(`/api/v1/incidents/${incidentId}/timeline/export?format=json`).set(AUTH).expect(200)).body as { type: string }[];
    expect(events).toHaveLength(NOTES.length + 1);
    const markdown = (await t.http().get(`/api/v1/incidents/${incidentId}/timeline/export?format=markdown`).set(AUTH).expect(200)).text;

    // Line breaks other renderers and editors honour (CommonMark does not) are gone too.
    expect(markdown).not.toMatch(/[\r\v\f\u0085\u2028\u2029]/);

    const md = new MarkdownIt({ html: true });
    const env: { references?: Record<string, { href: string; title: string }> } = {};
    const tokens = md.parse(markdown, env);
    const headings = tokens.flatMap((token, i) => (token.type === 'heading_open' ? [`${token.tag} ${tokens[i + 1].content}`] : []));
    expect(headings).toEqual([`h1 Timeline: ${incidentId}`, ...events.map((event) => `h2 2026-11-22T10:00:00.000Z - ${event.type}`)]);
    expect(tokens.filter((token) => token.type === 'hr')).toHaveLength(events.length);
    // One Data list per event, nothing else that structures text.
    expect(tokens.filter((token) => token.type === 'bullet_list_open')).toHaveLength(events.length);
    const structural = ['fence', 'code_block', 'html_block', 'table_open', 'blockquote_open', 'ordered_list_open'];
    expect(tokens.filter((token) => structural.includes(token.type)).map((token) => token.type)).toEqual([]);
    expect(tokens.flatMap((token) => token.children ?? []).filter((token) => token.type === 'html_inline')).toEqual([]);
    expect(env.references).toBeUndefined();

    // Nothing of the event text is lost: each note shows up, as text.
    const html = md.render(markdown);
    for (const shown of ['everything after this is code', 'indented code', 'tab heading', 'hidden', '[click][forged]', 'indented fence', 'fence key']) {
      expect(html).toContain(shown);
    }
    expect(html).toContain('&lt;details&gt;');
  });

  it('opens with what the incident is (title, severity, status) and names the service’s own URL for the keys', async () => {
    await t.http().post(`/api/v1/incidents/${incidentId}/ack`).set(AUTH).expect(200);
    const markdown = (await t.http().get(`/api/v1/incidents/${incidentId}/timeline/export?format=markdown`).set(AUTH).expect(200)).text;
    const head = markdown.split('\n---\n')[0].split('\n').filter(Boolean);
    // The title's line breaks are gone: it stays one paragraph after its label.
    expect(head).toEqual([`# Timeline: ${incidentId}`, `Incident: ${incidentId}`, 'Title: Disk full === ```', 'Severity: SEV-2', 'Status: acknowledged', expect.stringMatching(/^Generated: /)]);
    expect(markdown).toContain('then run npm run verify -- bundle.json --key https://im.example.com/api/v1/ledger/keys');
    expect(markdown).not.toContain('SERVICE_URL');
  });
});
