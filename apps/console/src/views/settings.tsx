import { useEffect, useState } from 'preact/hooks';
import { NOTIFICATION_SETTINGS, type NotificationSettings, SEVERITIES, UPDATE_NOTIFICATION_SETTINGS } from '../api/documents';
import { runGraphql } from '../api/graphql';
import type { Session } from '../session';
import { ErrorMessage } from './error-message';
import { severityLabel } from './labels';
import { useLoaded } from './use-loaded';

const CHANNELS = ['push', 'email'];
type Draft = Omit<NotificationSettings, 'id'>;

const toggled = <T,>(list: T[], value: T, on: boolean) => (on ? [...list, value] : list.filter((v) => v !== value));

/** The responder's notification settings: channels, which severities, quiet hours. */
export function Settings({ session }: { session: Session }) {
  const saved = useLoaded(() => runGraphql(NOTIFICATION_SETTINGS, {}, session.token), session.token);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [message, setMessage] = useState('');
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const settings = saved.data?.notificationSettings;
    if (settings) setDraft({ pushEnabled: settings.pushEnabled, severityFilter: settings.severityFilter, quietHours: settings.quietHours, channels: settings.channels });
  }, [saved.data]);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!draft) return;
    try {
      const quietHours = draft.quietHours && { start: draft.quietHours.start, end: draft.quietHours.end, timeZone: draft.quietHours.timeZone };
      await runGraphql(UPDATE_NOTIFICATION_SETTINGS, { input: { ...draft, quietHours } }, session.token);
      setError(null);
      setMessage('Saved.');
    } catch (refused) {
      setMessage('');
      setError(refused);
    }
  };

  return (
    <main id="main">
      <h1>Notification settings</h1>
      <ErrorMessage error={saved.error} />
      {draft && (
        <form class="card" onSubmit={submit}>
          <label class="check">
            <input type="checkbox" name="pushEnabled" checked={draft.pushEnabled} onChange={(e) => setDraft({ ...draft, pushEnabled: e.currentTarget.checked })} />
            Send push notifications
          </label>
          <fieldset>
            <legend>Channels</legend>
            {CHANNELS.map((channel) => (
              <label class="check" key={channel}>
                <input
                  type="checkbox"
                  name="channels"
                  checked={draft.channels.includes(channel)}
                  onChange={(e) => setDraft({ ...draft, channels: toggled(draft.channels, channel, e.currentTarget.checked) })}
                />
                {channel}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Notify me for</legend>
            {SEVERITIES.map((severity) => (
              <label class="check" key={severity}>
                <input
                  type="checkbox"
                  name="severityFilter"
                  checked={draft.severityFilter.includes(severity)}
                  onChange={(e) => setDraft({ ...draft, severityFilter: toggled(draft.severityFilter, severity, e.currentTarget.checked) })}
                />
                {severityLabel(severity)}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Quiet hours (SEV-1 still notifies)</legend>
            <label class="check">
              <input
                type="checkbox"
                name="quiet"
                checked={draft.quietHours !== null}
                onChange={(e) =>
                  setDraft({
                    ...draft,
                    quietHours: e.currentTarget.checked ? { start: '22:00', end: '07:00', timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone } : null,
                  })
                }
              />
              Hold notifications during quiet hours
            </label>
            {draft.quietHours && (
              <div class="inline-form">
                <label>
                  From
                  <input type="time" name="quietStart" value={draft.quietHours.start} onInput={(e) => setDraft({ ...draft, quietHours: { ...draft.quietHours!, start: e.currentTarget.value } })} />
                </label>
                <label>
                  Until
                  <input type="time" name="quietEnd" value={draft.quietHours.end} onInput={(e) => setDraft({ ...draft, quietHours: { ...draft.quietHours!, end: e.currentTarget.value } })} />
                </label>
                <label>
                  Time zone
                  <input name="timeZone" value={draft.quietHours.timeZone} onInput={(e) => setDraft({ ...draft, quietHours: { ...draft.quietHours!, timeZone: e.currentTarget.value } })} />
                </label>
              </div>
            )}
          </fieldset>
          <ErrorMessage error={error} />
          <p role="status">{message}</p>
          <button type="submit">Save settings</button>
        </form>
      )}
    </main>
  );
}
