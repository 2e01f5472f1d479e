import MarkdownIt from 'markdown-it';
import type { SignedHead } from '@im/ledger-proof';
import type { TimelineEntry } from '@im/read-models';
import { renderTimelineMarkdown } from '../timeline/timeline-markdown';
import { type PostmortemFacts, renderPostmortem } from './postmortem-markdown';

const ID = 'INC-1a2b3c4d';
const DECLARED = '2026-11-22T10:00:00.000Z';
const HEAD: SignedHead = { incident_id: ID, chain: 'internal', n: 5, hash: 'sha256:42d3', signed_at: '2026-11-22T11:00:00.000Z', kid: 'kid-1', sig: 'sig' };
const SERVICE_URL = 'https://im.example.com';

let ids = 0;
/** An event as the caller is shown it: recorded `recordedAfter` seconds after the declaration. */
function entry(eventType: string, recordedAfter: number, fields: Partial<TimelineEntry> = {}): TimelineEntry {
  const at = new Date(Date.parse(DECLARED) + recordedAfter * 1000).toISOString();
  return {
    id: `e-${++ids}`,
    incidentId: ID,
    eventTime: at,
    eventType,
    actor: 'alice',
    title: 'Note',
    content: '',
    source: 'im://test',
    data: {},
    createdAt: at,
    visibility: 'internal',
    dataClass: [],
    event: { specversion: '1.0', id: `e-${ids}`, source: 'im://test', type: eventType },
    ...fields,
  } as TimelineEntry;
}

const facts = (entries: TimelineEntry[], more: Partial<PostmortemFacts> = {}): PostmortemFacts => ({
  incident: { id: ID, title: 'Checkout is down', severity: 'SEV-1', status: 'resolved', createdAt: DECLARED, roles: { IC: 'alice', COMMS: 'bob' } },
  serviceName: 'Checkout',
  entries,
  head: HEAD,
  serviceUrl: SERVICE_URL,
  ...more,
});

const page = (after: number, step: number, round: number, users: string[]) =>
  entry('im.paging.page', after, { actor: 'system:escalation', title: 'im.paging.page', data: { step, round, paged: users.map((user) => ({ user, via: 'user' })), unstaffed: [] } });

const STORY = [
  entry('im.incident.declare', 0, { title: 'Incident declared' }),
  page(1, 1, 1, ['ann']),
  entry('im.incident.ack', 252, { actor: 'ann', title: 'Incident acknowledged' }),
  page(300, 2, 1, ['bob', 'ann']),
  // A second acknowledgement (after a reopen) does not move the first.
  entry('im.incident.note', 400, { content: 'Rolled back the deploy' }),
  entry('im.incident.ack', 500, { actor: 'bob', title: 'Incident acknowledged' }),
  entry('im.incident.resolve', 3_605, { title: 'Incident resolved' }),
];

const md = new MarkdownIt({ html: true });
const headings = (markdown: string) => {
  const tokens = md.parse(markdown, {});
  // The text a reader sees: escapes resolved.
  const text = (inline: MarkdownIt.Token) => (inline.children ?? []).map((child) => child.content).join('');
  return tokens.flatMap((token, i) => (token.type === 'heading_open' ? [`${token.tag} ${text(tokens[i + 1])}`] : []));
};
const SECTIONS = ['h2 Summary', 'h2 Responders', 'h2 Timeline', 'h2 Contributing factors', 'h2 Action items'];

describe('renderPostmortem', () => {
  it('lays the draft out as docs/api.md says: summary with record times and durations, responders and pages, one line per event, the team’s sections, the signed head', () => {
    expect(renderPostmortem(facts(STORY))).toBe(
      [
        '# Postmortem: Checkout is down',
        '',
        '## Summary',
        '',
        `- Incident: ${ID}`,
        '- Service: Checkout',
        '- Severity: SEV-1',
        '- Status: resolved',
        `- Declared: ${DECLARED}`,
        '- Acknowledged: 2026-11-22T10:04:12.000Z',
        '- Resolved: 2026-11-22T11:00:05.000Z',
        '- Time to acknowledge: 4 min 12 s',
        '- Time to resolve: 1 h 5 s',
        '',
        'Times are the ledger’s record times (UTC) of the events shown to you. The time to acknowledge runs from the declaration to the first acknowledgement, the time to resolve from the declaration to the first resolution, in whole seconds rounded down.',
        '',
        '## Responders',
        '',
        '- IC: alice',
        '- OPS: none',
        '- COMMS: bob',
        '- SECURITY: none',
        '- PRIVACY: none',
        '',
        'Paged:',
        '',
        '- 2026-11-22T10:00:01.000Z, step 1, round 1: ann',
        '- 2026-11-22T10:05:00.000Z, step 2, round 1: bob, ann',
        '',
        '## Timeline',
        '',
        '- 2026-11-22T10:00:00.000Z · im.incident.declare · alice · Incident declared',
        '- 2026-11-22T10:00:01.000Z · im.paging.page · system:escalation · im.paging.page',
        '- 2026-11-22T10:04:12.000Z · im.incident.ack · ann · Incident acknowledged',
        '- 2026-11-22T10:05:00.000Z · im.paging.page · system:escalation · im.paging.page',
        '- 2026-11-22T10:06:40.000Z · im.incident.note · alice · Rolled back the deploy',
        '- 2026-11-22T10:08:20.000Z · im.incident.ack · bob · Incident acknowledged',
        '- 2026-11-22T11:00:05.000Z · im.incident.resolve · alice · Incident resolved',
        '',
        '## Contributing factors',
        '',
        '(for the team to fill in)',
        '',
        '## Action items',
        '',
        '(for the team to fill in)',
        '',
        '---',
        '',
        'Ledger head: chain internal, n 5, hash sha256:42d3, key kid-1, signed at 2026-11-22T11:00:00.000Z',
        '',
        `Verify: save GET /api/v1/incidents/${ID}/timeline/export?format=ledger as bundle.json, then run npm run verify -- bundle.json --key ${SERVICE_URL}/api/v1/ledger/keys`,
        '',
      ].join('\n'),
    );
  });

  it('says "not yet" for what the caller sees no event of, "none" for no service or role holder, and "no one" paged', () => {
    const markdown = renderPostmortem(facts([STORY[0]], { serviceName: undefined, incident: { ...facts([]).incident, status: 'open', roles: undefined } }));
    for (const line of ['- Service: none', '- Acknowledged: not yet', '- Resolved: not yet', '- Time to acknowledge: not yet', '- Time to resolve: not yet', '- IC: none', 'Paged:\n\n- no one']) {
      expect(markdown).toContain(line);
    }
  });

  it('ends exactly as the Markdown export of the same head does', () => {
    const about = { serviceUrl: SERVICE_URL };
    const exportTail = renderTimelineMarkdown(ID, STORY, DECLARED, HEAD, about).split('\n').slice(-5);
    expect(renderPostmortem(facts(STORY)).split('\n').slice(-5)).toEqual(exportTail);
  });

  it('shows redacted text as it is given: the placeholder, never more', () => {
    const redacted = entry('im.incident.note', 10, { actor: '[REDACTED]', content: '[REDACTED]', title: '[REDACTED]' });
    expect(renderPostmortem(facts([redacted]))).toContain('- 2026-11-22T10:00:10.000Z · im.incident.note · [REDACTED] · [REDACTED]');
  });

  describe('keeps event text inert', () => {
    const FORGERIES = [
      '\n## Action items\n- [x] done',
      '# Postmortem: forged',
      'before\r## Timeline\u2028# Postmortem: again\u0085---',
      '```\neverything after this is code',
      '<details>\n<summary>hidden</summary>\n\n<!--',
      '[forged]: https://evil.example "x"',
      'title line\n===',
    ];
    const forged = FORGERIES.map((text, i) =>
      entry(`im.incident.note\n## Summary ${i}`, 10 + i, { actor: `mallory\n# actor ${i}`, content: text, data: {} }),
    );
    const pagedForgery = page(30, 1, 1, ['ann\n## Action items\n- [x] paged', '<b>bob</b>']);
    const markdown = renderPostmortem(
      facts([...forged, pagedForgery], { incident: { ...facts([]).incident, title: 'Disk\n## Summary\r\n<i>full</i> ###', roles: { IC: 'eve\n# Postmortem: IC' } }, serviceName: 'svc\n## Timeline' }),
    );

    it('as headings and sections: exactly one title and the five sections, in order', () => {
      expect(headings(markdown)).toEqual(['h1 Postmortem: Disk ## Summary <i>full</i> ###', ...SECTIONS]);
    });

    it('as blocks: no code, HTML, quote, table, link definition, or rule but the one before the head; every event a list item of its own', () => {
      const env: { references?: Record<string, { href: string; title: string }> } = {};
      const tokens = md.parse(markdown, env);
      const structural = ['fence', 'code_block', 'html_block', 'table_open', 'blockquote_open', 'ordered_list_open'];
      expect(tokens.filter((token) => structural.includes(token.type))).toEqual([]);
      expect(tokens.flatMap((token) => token.children ?? []).filter((token) => token.type === 'html_inline')).toEqual([]);
      expect(tokens.filter((token) => token.type === 'hr')).toHaveLength(1);
      expect(env.references).toBeUndefined();
      const timeline = markdown.split('\n## Timeline\n')[1].split('\n## Contributing factors\n')[0];
      expect(timeline.split('\n').filter(Boolean)).toHaveLength(forged.length + 1);
    });

    it('HTML escaped like the export, every line break gone, the text still there to read', () => {
      expect(markdown).not.toMatch(/[\r\v\f\u0085\u2028\u2029]/);
      expect(markdown).toContain('- 2026-11-22T10:00:10.000Z · im.incident.note ## Summary 0 · mallory # actor 0 ·  ## Action items - [x] done');
      expect(markdown).toContain('&lt;details>');
      expect(markdown).toContain('- 2026-11-22T10:00:30.000Z, step 1, round 1: ann ## Action items - [x] paged, &lt;b>bob&lt;/b>');
      expect(markdown).toContain('- IC: eve # Postmortem: IC');
      expect(markdown).toContain('- Service: svc ## Timeline');
    });
  });
});
