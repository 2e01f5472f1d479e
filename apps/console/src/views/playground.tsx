import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery, printSchema } from 'graphql';
import { useState } from 'preact/hooks';
import { sendGraphql } from '../api/graphql';
import type { Session } from '../session';
import { ErrorMessage } from './error-message';

const FIRST_QUERY = `{
  myIncidents(limit: 5) { id title severity status lastUpdate }
}`;

/**
 * A small GraphQL playground, served from this origin with the console (no
 * CDN): a query and its variables sent with the signed-in user's token, the
 * answer as the server gave it, and the schema printed from introspection.
 */
export function Playground({ session }: { session: Session }) {
  const [query, setQuery] = useState(FIRST_QUERY);
  const [variables, setVariables] = useState('{}');
  const [result, setResult] = useState('');
  const [schema, setSchema] = useState('');
  const [error, setError] = useState<unknown>(null);

  const run = async (event?: Event) => {
    event?.preventDefault();
    let parsed: unknown;
    try {
      parsed = variables.trim() ? JSON.parse(variables) : {};
    } catch {
      setResult('The variables are not JSON: write them as {"name": value}.');
      return;
    }
    try {
      const { status, answer } = await sendGraphql(query, parsed, session.token);
      setResult(`HTTP ${status}\n${JSON.stringify(answer, null, 2)}`);
      setError(null);
    } catch (failed) {
      setError(failed);
    }
  };
  const loadSchema = async () => {
    if (schema) return;
    try {
      const { answer } = await sendGraphql(getIntrospectionQuery(), {}, session.token);
      setSchema(printSchema(buildClientSchema(answer.data as IntrospectionQuery)));
    } catch (failed) {
      setError(failed);
    }
  };

  return (
    <main id="main" class="playground">
      <h1>GraphQL playground</h1>
      <p class="muted">
        Sent to /api/v1/graphql as {session.sub}, with your sign-in’s token. Ctrl+Enter runs the query.
      </p>
      <form class="card" onSubmit={run} onKeyDown={(e) => e.key === 'Enter' && (e.ctrlKey || e.metaKey) && run(e)}>
        <label>
          Query
          <textarea name="query" class="code" rows={10} spellcheck={false} value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </label>
        <label>
          Variables (JSON)
          <textarea name="variables" class="code" rows={3} spellcheck={false} value={variables} onInput={(e) => setVariables(e.currentTarget.value)} />
        </label>
        <button type="submit">Run</button>
      </form>
      <ErrorMessage error={error} />
      <section class="card" aria-labelledby="answer-heading">
        <h2 id="answer-heading">Answer</h2>
        <pre class="code" aria-live="polite" data-testid="answer">
          {result || 'Run a query to see the answer.'}
        </pre>
      </section>
      <details class="card" onToggle={(e) => e.currentTarget.open && loadSchema()}>
        <summary>Schema</summary>
        <pre class="code">{schema || 'Loading…'}</pre>
      </details>
    </main>
  );
}
