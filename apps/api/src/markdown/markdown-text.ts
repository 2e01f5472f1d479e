import { LINE_BREAK, oneLine } from '@im/incidents';
import type { SignedHead } from '@im/ledger-proof';

/**
 * What every Markdown document the service writes from the ledger shares (the
 * timeline export, the postmortem draft): the escaping that keeps a sender's
 * text from forging structure, and the signed head it ends with.
 */

export const MARKDOWN_CONTENT_TYPE = 'text/markdown; charset=utf-8';

/** No raw HTML (so no HTML block either) and no entity references: `<` and `&` show as typed. */
const escapeHtml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * A line of event text that cannot open a block. Leading whitespace goes (four spaces or a tab
 * open a code block; a paragraph does not show it anyway), then the character that would open a
 * block is backslash-escaped: ATX headings (#), setext underlines and rules (= - _ *), quotes (>),
 * lists (+ - * and the . or ) after digits), tables (| :), fences (``` ~~~: an unclosed one
 * swallows every later event) and link reference definitions ([).
 */
export const inert = (line: string) =>
  line
    .trimStart()
    .replace(/^(?:[#>*+|=_:[-]|`(?=``)|~(?=~~))/, '\\$&')
    .replace(/^(\d+)([.)])/, '$1\\$2');

/** One line of text, placed after a label on a line of its own (so no block can start there). */
export const inline = (value: string) => oneLine(escapeHtml(value));

/** Multi-line event text, kept readable but unable to forge structure. */
export const block = (value: string) => escapeHtml(value).split(LINE_BREAK).map(inert).join('\n');

/**
 * The two paragraphs a Markdown document of the ledger ends with: the signed head of the
 * reader's chain, and how to verify it against the keys at the service's own URL (CONSOLE_URL).
 */
export const signedHeadParagraphs = (incidentId: string, head: SignedHead, serviceUrl: string): string[] => [
  `Ledger head: chain ${head.chain}, n ${head.n}, hash ${String(head.hash)}, key ${inline(head.kid)}, signed at ${head.signed_at}`,
  '',
  `Verify: save GET /api/v1/incidents/${inline(incidentId)}/timeline/export?format=ledger as bundle.json, then run npm run verify -- bundle.json --key ${serviceUrl}/api/v1/ledger/keys`,
  '',
];
