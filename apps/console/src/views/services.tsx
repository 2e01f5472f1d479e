import { useState } from 'preact/hooks';
import { createService, deleteService, listPolicies, listServices, type Policy, type Service, updateService } from '../api/oncall';
import type { Session } from '../session';
import { ConfigList, FormEnd, useSubmit } from './config-list';
import { ErrorMessage } from './error-message';
import { FieldError, fieldErrors, fieldId, invalid, TextField } from './fields';
import { useLoaded } from './use-loaded';

function ServiceForm({ session, service, policies, done }: { session: Session; service?: Service; policies: Policy[]; done: () => void }) {
  const [name, setName] = useState(service?.name ?? '');
  const [description, setDescription] = useState(service?.description ?? '');
  const [policy, setPolicy] = useState(service?.escalation_policy_id ?? '');
  const body = () => ({ name, description: description || null, escalation_policy_id: policy || null });
  const { error, busy, submit } = useSubmit(() => (service ? updateService(session.token, service.id, body()) : createService(session.token, body())), done);
  const errors = fieldErrors(error);
  const form = service ? `service-${service.id}` : 'service-new';
  const policyId = fieldId(form, 'escalation_policy_id');
  const policyError = errors.at('escalation_policy_id');
  return (
    <form class="card" onSubmit={submit} aria-label={service ? `Edit ${service.name}` : 'New service'} noValidate>
      <TextField form={form} path="name" label="Name" value={name} required error={errors.at('name')} onInput={setName} />
      <TextField form={form} path="description" label="Description (optional)" value={description} error={errors.at('description')} onInput={setDescription} />
      <div class="field">
        <label for={policyId}>Escalation policy</label>
        <select id={policyId} name="escalation_policy_id" value={policy} onChange={(e) => setPolicy(e.currentTarget.value)} {...invalid(policyId, policyError)}>
          <option value="">None: its incidents page no one</option>
          {policies.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <FieldError id={policyId} error={policyError} />
      </div>
      <ErrorMessage error={errors.rest()} />
      <FormEnd item={service} noun="service" busy={busy} onCancel={done} />
    </form>
  );
}

/** The services and the escalation policy of each; an oncall.admin creates, edits and deletes them. */
export function ServicesPage({ session }: { session: Session }) {
  const loaded = useLoaded(async () => {
    const [services, policies] = await Promise.all([listServices(session.token), listPolicies(session.token)]);
    return { services, policies };
  }, session.token);
  const policies = loaded.data?.policies ?? [];
  const policyName = (id: string | null) => (id ? (policies.find((p) => p.id === id)?.name ?? id) : null);
  return (
    <ConfigList
      session={session}
      title="Services"
      noun="service"
      items={loaded.data?.services}
      error={loaded.error}
      reload={loaded.reload}
      describe={(service) => (
        <>
          {service.description && <p>{service.description}</p>}
          <p>
            Escalation policy: <strong>{policyName(service.escalation_policy_id) ?? 'none'}</strong>
          </p>
        </>
      )}
      form={(service, done) => <ServiceForm session={session} service={service} policies={policies} done={done} />}
      remove={(service) => deleteService(session.token, service.id)}
      removeNote="A service with an unresolved incident cannot be deleted."
    />
  );
}
