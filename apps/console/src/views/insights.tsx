import { useState } from 'preact/hooks';
import { type MetricsGrouping, metricsCsv, readMetrics } from '../api/insights';
import { canReadTimeline, type Session } from '../session';
import { ErrorMessage } from './error-message';
import { ServiceCountsChart, WeeklyTimesChart } from './insights-charts';
import { saveFile } from './save-file';
import { useLoaded } from './use-loaded';
import { weeksUntil } from './weeks';

const WEEK_COUNTS = [4, 8, 12, 26, 52];
const DEFAULT_WEEKS = 12;

/** A day as a date field holds it, in UTC: the weeks are UTC weeks. */
const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const dayLabel = (at: Date) => at.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/**
 * Response metrics over whole ISO weeks (UTC): time to acknowledge and to
 * resolve per week, and the incidents of each service, for the incidents the
 * caller may see (GET /api/v1/analytics/incidents, timeline.reader), each
 * also as CSV. Loaded when opened (app.tsx).
 */
export function InsightsPage({ session }: { session: Session }) {
  const [count, setCount] = useState(DEFAULT_WEEKS);
  const [until, setUntil] = useState(() => utcDay(new Date()));
  const chosen = weeksUntil(new Date(`${until}T00:00:00Z`), count);
  const span = `${chosen.weeks[0]} to ${chosen.weeks[count - 1]} (UTC)`;
  const reader = canReadTimeline(session);
  const metrics = useLoaded(
    async () => (reader ? Promise.all([readMetrics(session.token, chosen, 'week'), readMetrics(session.token, chosen, 'service')]) : undefined),
    `${session.token}|${chosen.from.toISOString()}|${count}`,
  );
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const download = async (groupBy: MetricsGrouping) => {
    try {
      saveFile(await metricsCsv(session.token, chosen, groupBy), `incidents-by-${groupBy}-${chosen.weeks[0]}-to-${chosen.weeks[count - 1]}.csv`);
      setDownloadError(null);
    } catch (refused) {
      setDownloadError(refused);
    }
  };
  const lastDay = new Date(chosen.to.getTime() - 1);

  return (
    <main id="main" class="insights">
      <h1>Insights</h1>
      <p>How fast incidents were acknowledged and resolved, and how many each service had: the incidents declared in these weeks that you may see.</p>
      {!reader ? (
        <p class="card">Insights need the timeline.reader role, which your sign-in does not carry.</p>
      ) : (
        <>
          <form class="list-filters" aria-label="Choose the weeks" onSubmit={(event) => event.preventDefault()}>
            <label>
              Weeks
              <select name="weeks" value={count} onChange={(event) => setCount(Number(event.currentTarget.value))}>
                {WEEK_COUNTS.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Up to the week of (UTC)
              <input type="date" name="until" required value={until} onChange={(event) => event.currentTarget.value && setUntil(event.currentTarget.value)} />
            </label>
          </form>
          <p class="muted" data-testid="window">
            ISO weeks {span}: {dayLabel(chosen.from)} to {dayLabel(lastDay)}.
          </p>
          <ErrorMessage error={metrics.error} />
          {!metrics.data && !metrics.error && <p aria-live="polite">Loading…</p>}
          {metrics.data && (
            <>
              <section class="card" aria-labelledby="tta-heading">
                <h2 id="tta-heading">Time to acknowledge</h2>
                <WeeklyTimesChart weeks={chosen.weeks} groups={metrics.data[0]} measure="time_to_acknowledge" />
              </section>
              <section class="card" aria-labelledby="ttr-heading">
                <h2 id="ttr-heading">Time to resolve</h2>
                <WeeklyTimesChart weeks={chosen.weeks} groups={metrics.data[0]} measure="time_to_resolve" />
              </section>
              <section class="card" aria-labelledby="services-heading">
                <h2 id="services-heading">Incidents per service</h2>
                <ServiceCountsChart groups={metrics.data[1]} span={span} />
              </section>
            </>
          )}
          <section class="card" aria-labelledby="csv-heading">
            <h2 id="csv-heading">Download the figures</h2>
            <p class="muted">Every count and time (seconds) of these weeks as CSV, for a spreadsheet.</p>
            <div class="actions">
              <button type="button" class="secondary" onClick={() => download('week')}>
                CSV by week
              </button>
              <button type="button" class="secondary" onClick={() => download('service')}>
                CSV by service
              </button>
            </div>
            <ErrorMessage error={downloadError} />
          </section>
        </>
      )}
    </main>
  );
}
