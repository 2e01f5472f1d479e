import type { ComponentChildren } from 'preact';
import { ApiError, describeError } from '../api/errors';

/**
 * A 400 names the field it refuses first ("time_zone must be …",
 * "steps[0].targets[0].id: schedule x not found"): its path in the body, as
 * the form's fields are named.
 */
export function fieldOf(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  return /^([a-z_]+(?:\[\d+\])*(?:\.[a-z_]+(?:\[\d+\])*)*)(?::| must | is )/.exec(error.message)?.[1] ?? null;
}

const within = (field: string, path: string) => field === path || field.startsWith(`${path}.`) || field.startsWith(`${path}[`);

/**
 * Where a form shows its error: `at(path)` beside the field it names, and
 * `rest()` (called after every field, at the end of the form) when no field
 * took it: a refusal without a field (403, 409), or one naming a field the
 * form does not show.
 */
export function fieldErrors(error: unknown) {
  const field = fieldOf(error);
  let taken = false;
  return {
    at(path: string): unknown {
      if (taken || field === null || !within(field, path)) return null;
      taken = true;
      return error;
    },
    rest: (): unknown => (taken ? null : error),
  };
}

/** A DOM id for a field's path (`layers[0].name` → `f-layers-0-name`). */
export const fieldId = (form: string, path: string) => `${form}-${path.replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '')}`;

/** The error beside a field, read with it (aria-describedby) and announced as it appears. */
export function FieldError({ id, error }: { id: string; error: unknown }) {
  if (!error) return null;
  return (
    <p class="error field-error" id={`${id}-error`} role="alert">
      {describeError(error)}
    </p>
  );
}

/** What an input in error carries: it is invalid, and its error describes it. */
export const invalid = (id: string, error: unknown) => (error ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {});

/** A labelled text-like input with its error. */
export function TextField(props: {
  form: string;
  path: string;
  label: ComponentChildren;
  value: string | number;
  error: unknown;
  onInput: (value: string) => void;
  type?: 'text' | 'number' | 'time' | 'datetime-local';
  required?: boolean;
  min?: number;
  max?: number;
  list?: string;
  readOnly?: boolean;
}) {
  const id = fieldId(props.form, props.path);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.path}
        type={props.type ?? 'text'}
        value={props.value}
        required={props.required}
        min={props.min}
        max={props.max}
        list={props.list}
        readOnly={props.readOnly}
        onInput={(e) => props.onInput(e.currentTarget.value)}
        {...invalid(id, props.error)}
      />
      <FieldError id={id} error={props.error} />
    </div>
  );
}
