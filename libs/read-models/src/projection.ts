import type { RecordedEvent } from '@im/event-store';

/**
 * A read model as a pure fold: each event names the document it changes and
 * `evolve` computes the new document. The runner loads and stores documents;
 * a projection never does I/O.
 */
export interface Projection<Doc> {
  /** Also the name of its collection and of its checkpoint. */
  readonly name: string;
  /** Key of the document the event changes, or undefined when the event does not concern this read model. */
  keyOf(event: RecordedEvent): string | undefined;
  /**
   * Documents are written once per event and never change (a ledger view).
   * The runner then skips loading them: writing the same document again is harmless.
   */
  readonly writeOnce?: boolean;
  /** New document (undefined: none/delete). Must be deterministic so a rebuild gives the same bytes. */
  evolve(doc: Doc | undefined, event: RecordedEvent): Doc | undefined;
}
