/**
 * Every line break a renderer or editor may honour: CommonMark's (\r\n, lone \r, \n) and the
 * others (\v, \f, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR). A lone \r is a line ending to
 * CommonMark and to many mail readers: missing it let event text start a forged line.
 */
export const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/**
 * The line breaks above, every other control character (C0, DEL, C1) and the bidirectional
 * overrides and isolates, which reorder what a reader sees: text from a sender, placed where
 * the service speaks (a mail, a push, a line of the Markdown export), must not start a line
 * of its own or disguise one.
 */
const NOT_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;

/** The text on one line: each run of line breaks and control characters becomes one space. */
export const oneLine = (text: string): string => text.replace(NOT_ONE_LINE, ' ');
