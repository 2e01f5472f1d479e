import { useState } from 'preact/hooks';
import { createPolicy, deletePolicy, listPolicies, listSchedules, type Policy, type PolicyInput, type Schedule, type Target, updatePolicy } from '../api/oncall';
import type { Session } from '../session';
import { ConfigList, FormEnd, removed, replaced, useSubmit } from './config-list';
import { ErrorMessage } from './error-message';
import { FieldError, fieldErrors, fieldId, invalid, TextField } from './fields';
import { useLoaded } from './use-loaded';

interface StepDraft {
  delay: string;
  targets: Target[];
}

function PolicyForm({ session, policy, schedules, done }: { session: Session; policy?: Policy; schedules: Schedule[]; done: () => void }) {
  const [name, setName] = useState(policy?.name ?? '');
  const [repeat, setRepeat] = useState(String(policy?.repeat ?? 0));
  const [steps, setSteps] = useState<StepDraft[]>(() =>
    policy ? policy.steps.map((step) => ({ delay: String(step.delay_seconds), targets: step.targets })) : [{ delay: '300', targets: [{ type: 'user', id: session.sub }] }],
  );
  const body = (): PolicyInput => ({ name, repeat: Number(repeat), steps: steps.map((step) => ({ delay_seconds: Number(step.delay), targets: step.targets })) });
  const { error, busy, submit } = useSubmit(() => (policy ? updatePolicy(session.token, policy.id, body()) : createPolicy(session.token, body())), done);
  const errors = fieldErrors(error);
  const form = policy ? `policy-${policy.id}` : 'policy-new';
  const setStep = (i: number, step: Partial<StepDraft>) => setSteps(replaced(steps, i, { ...steps[i], ...step }));

  return (
    <form class="card" onSubmit={submit} aria-label={policy ? `Edit ${policy.name}` : 'New escalation policy'} noValidate>
      <TextField form={form} path="name" label="Name" value={name} required error={errors.at('name')} onInput={setName} />
      {steps.map((step, i) => (
        <fieldset key={i} class="step">
          <legend>Step {i + 1}</legend>
          <TextField
            form={form}
            path={`steps[${i}].delay_seconds`}
            type="number"
            min={1}
            max={86400}
            label="Seconds to wait for an acknowledgement before the next step"
            value={step.delay}
            error={errors.at(`steps[${i}].delay_seconds`)}
            onInput={(delay) => setStep(i, { delay })}
          />
          {step.targets.map((target, j) => {
            const path = `steps[${i}].targets[${j}]`;
            const typeId = fieldId(form, `${path}.type`);
            const typeError = errors.at(`${path}.type`);
            const idId = fieldId(form, `${path}.id`);
            const idError = errors.at(`${path}.id`);
            const setTarget = (change: Partial<Target>) => setStep(i, { targets: replaced(step.targets, j, { ...target, ...change }) });
            return (
              <div class="inline-form target" key={j}>
                <div class="field">
                  <label for={typeId}>Page (target {j + 1})</label>
                  <select
                    id={typeId}
                    name={`${path}.type`}
                    value={target.type}
                    onChange={(e) => setTarget({ type: e.currentTarget.value as Target['type'], id: e.currentTarget.value === 'schedule' ? (schedules[0]?.id ?? '') : '' })}
                    {...invalid(typeId, typeError)}
                  >
                    <option value="user">a person</option>
                    <option value="schedule">who is on call in a schedule</option>
                  </select>
                  <FieldError id={typeId} error={typeError} />
                </div>
                {target.type === 'schedule' ? (
                  <div class="field">
                    <label for={idId}>Schedule</label>
                    <select id={idId} name={`${path}.id`} value={target.id} onChange={(e) => setTarget({ id: e.currentTarget.value })} {...invalid(idId, idError)}>
                      {schedules.map((s) => (
                        <option key={s.id} value={s.id}>
                          {s.name}
                        </option>
                      ))}
                    </select>
                    <FieldError id={idId} error={idError} />
                  </div>
                ) : (
                  <TextField form={form} path={`${path}.id`} label="Person (user id)" value={target.id} error={idError} onInput={(id) => setTarget({ id })} />
                )}
                {step.targets.length > 1 && (
                  <button type="button" class="secondary" onClick={() => setStep(i, { targets: removed(step.targets, j) })}>
                    Remove target {j + 1}
                  </button>
                )}
              </div>
            );
          })}
          <FieldError id={fieldId(form, `steps[${i}].targets`)} error={errors.at(`steps[${i}].targets`)} />
          <div class="actions">
            <button type="button" class="secondary" onClick={() => setStep(i, { targets: [...step.targets, { type: 'user', id: '' }] })}>
              Add a target
            </button>
            {steps.length > 1 && (
              <button type="button" class="secondary" onClick={() => setSteps(removed(steps, i))}>
                Remove step {i + 1}
              </button>
            )}
          </div>
        </fieldset>
      ))}
      <button type="button" class="secondary" onClick={() => setSteps([...steps, { delay: '600', targets: [{ type: 'user', id: '' }] }])}>
        Add a step
      </button>
      <TextField form={form} path="repeat" type="number" min={0} max={9} label="Start again from step 1 this many times (0–9)" value={repeat} error={errors.at('repeat')} onInput={setRepeat} />
      <ErrorMessage error={errors.rest()} />
      <FormEnd item={policy} noun="escalation policy" busy={busy} onCancel={done} />
    </form>
  );
}

/** The escalation policies, step by step; an oncall.admin creates, edits and deletes them. */
export function PoliciesPage({ session }: { session: Session }) {
  const loaded = useLoaded(async () => {
    const [policies, schedules] = await Promise.all([listPolicies(session.token), listSchedules(session.token)]);
    return { policies, schedules };
  }, session.token);
  const schedules = loaded.data?.schedules ?? [];
  const targetName = (target: Target) =>
    target.type === 'user' ? target.id : `whoever is on call in ${schedules.find((s) => s.id === target.id)?.name ?? `schedule ${target.id}`}`;
  return (
    <ConfigList
      session={session}
      title="Escalation policies"
      noun="escalation policy"
      items={loaded.data?.policies}
      error={loaded.error}
      reload={loaded.reload}
      describe={(policy) => (
        <>
          <ol class="steps">
            {policy.steps.map((step, i) => (
              <li key={i}>
                Page {step.targets.map(targetName).join(' and ')}; after {step.delay_seconds} s without an acknowledgement, {i + 1 < policy.steps.length ? 'the next step' : 'the end of the round'}.
              </li>
            ))}
          </ol>
          <p>{policy.repeat === 0 ? 'Does not start again.' : `Starts again from step 1 ${policy.repeat} time(s).`}</p>
        </>
      )}
      form={(policy, done) => <PolicyForm session={session} policy={policy} schedules={schedules} done={done} />}
      remove={(policy) => deletePolicy(session.token, policy.id)}
      removeNote="A policy a service names cannot be deleted."
    />
  );
}
