import type { ComponentChildren } from 'preact';
import { useId, useRef } from 'preact/hooks';

/**
 * A button that asks first, in a modal dialog (which the keyboard and screen
 * readers handle natively): for what others notice (a move of the incident,
 * a page) or what cannot be undone (a deletion). `children` are fields the
 * question needs (the incident a duplicate duplicates).
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  yes: string;
  onConfirm: () => void | Promise<void>;
  detail?: ComponentChildren;
  children?: ComponentChildren;
  secondary?: boolean;
  disabled?: boolean;
  /** The button's name where its label alone is ambiguous (a Delete in a list). */
  name?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useId();
  const confirm = (event: Event) => {
    event.preventDefault();
    dialog.current?.close();
    void props.onConfirm();
  };
  return (
    <>
      <button type="button" class={props.secondary ? 'secondary' : ''} disabled={props.disabled} aria-label={props.name} onClick={() => dialog.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={heading}>
        <form onSubmit={confirm}>
          <h2 id={heading}>{props.question}</h2>
          {props.detail && <p>{props.detail}</p>}
          {props.children}
          <div class="actions">
            <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit">{props.yes}</button>
          </div>
        </form>
      </dialog>
    </>
  );
}
