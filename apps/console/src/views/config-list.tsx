import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { canAdminOnCall, type Session } from '../session';
import { ConfirmButton } from './confirm';
import { ErrorMessage } from './error-message';

/**
 * A page of on-call configuration (services, escalation policies): each item
 * described, and for an oncall.admin a form to create one, and to edit or
 * delete each; others read.
 */
export function ConfigList<T extends { id: string; name: string }>(props: {
  session: Session;
  title: string;
  /** "service", "escalation policy". */
  noun: string;
  items: T[] | undefined;
  error: unknown;
  describe: (item: T) => ComponentChildren;
  /** The form for a new item (none given) or for one; `done` after saving or to give up. */
  form: (item: T | undefined, done: () => void) => ComponentChildren;
  remove: (item: T) => Promise<void>;
  /** Why deleting may be refused, said before asking. */
  removeNote: string;
  reload: () => void;
}) {
  const admin = canAdminOnCall(props.session);
  const [editing, setEditing] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<{ id: string; error: unknown } | null>(null);
  const done = () => {
    setEditing(null);
    props.reload();
  };
  const remove = async (item: T) => {
    try {
      await props.remove(item);
      setRefusal(null);
      props.reload();
    } catch (error) {
      setRefusal({ id: item.id, error });
    }
  };
  return (
    <main id="main">
      <p class="muted">
        <a href="/oncall">On call</a> › {props.title.toLowerCase()}
      </p>
      <div class="title-row">
        <h1>{props.title}</h1>
        {admin && editing !== 'new' && (
          <button type="button" onClick={() => setEditing('new')}>
            New {props.noun}
          </button>
        )}
      </div>
      {!admin && <p class="muted">Changing these needs the oncall.admin role, which your sign-in does not carry.</p>}
      {editing === 'new' && props.form(undefined, done)}
      <ErrorMessage error={props.error} />
      {props.items?.length === 0 && <p class="card">No {props.noun} yet.</p>}
      <ul class="plain-list" aria-label={props.title}>
        {props.items?.map((item) =>
          editing === item.id ? (
            <li key={item.id}>{props.form(item, done)}</li>
          ) : (
            <li key={item.id} class="card" data-item={item.name}>
              <h2>{item.name}</h2>
              {props.describe(item)}
              {admin && (
                <div class="actions">
                  <button type="button" class="secondary" aria-label={`Edit ${item.name}`} onClick={() => setEditing(item.id)}>
                    Edit
                  </button>
                  <ConfirmButton
                    label="Delete"
                    name={`Delete ${item.name}`}
                    secondary
                    question={`Delete the ${props.noun} ${item.name}?`}
                    detail={props.removeNote}
                    yes="Yes, delete it"
                    onConfirm={() => remove(item)}
                  />
                </div>
              )}
              {refusal?.id === item.id && <ErrorMessage error={refusal.error} />}
            </li>
          ),
        )}
      </ul>
    </main>
  );
}

/** The end of a create or edit form: save, or give up. */
export function FormEnd({ item, noun, busy, onCancel }: { item: unknown; noun: string; busy: boolean; onCancel: () => void }) {
  return (
    <div class="actions form-end">
      <button type="submit" disabled={busy}>
        {item ? `Save ${noun}` : `Create ${noun}`}
      </button>
      <button type="button" class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

export const replaced = <T,>(list: T[], i: number, value: T) => list.map((item, j) => (j === i ? value : item));
export const removed = <T,>(list: T[], i: number) => list.filter((_, j) => j !== i);

/** Submitting a form: its error, whether it is on its way, and the handler that saves then says done. */
export function useSubmit(save: () => Promise<unknown>, done: () => void) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await save();
      setError(null);
      setBusy(false);
      done();
    } catch (refused) {
      setError(refused);
      setBusy(false);
    }
  };
  return { error, busy, submit };
}
