import { createSourceEventStream, type DocumentNode, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';

type Execution = ReturnType<typeof execute>;

/** Per parsed subscription: its operation text, name and variables. Two subscriptions with equal keys select the same fields of a payload. */
const operationKeys = new WeakMap<DocumentNode, string>();
/** Per payload object and operation key, its execution. */
const executions = new WeakMap<object, Map<string, Execution>>();

/** Records what `document` (parsed for one subscription) runs, so its executions can be shared. */
export function rememberOperation(document: DocumentNode, query: string, operationName: string | null | undefined, variables: unknown): void {
  operationKeys.set(document, JSON.stringify([query, operationName ?? null, variables ?? null]));
}

function executeOnce(args: ExecutionArgs, key: string | undefined, payload: unknown): Execution {
  const run = () => execute({ ...args, rootValue: payload });
  if (key === undefined || typeof payload !== 'object' || payload === null) return run();
  let byKey = executions.get(payload);
  if (!byKey) executions.set(payload, (byKey = new Map()));
  let execution = byKey.get(key);
  if (!execution) byKey.set(key, (execution = run()));
  return execution;
}

/**
 * graphql-js's `subscribe`, with each payload's execution shared by the
 * subscriptions that run the same operation on the same payload object.
 * subscription-payloads.ts hands the subscribers of one policy input the same
 * payload object for a feed item, so 100 dashboards on one incident execute
 * each event's selection once, not 100 times. The fields of these payloads
 * have no resolvers of their own that read the caller: the result depends on
 * the payload and the operation only.
 */
export async function subscribeSharingExecutions(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  const key = operationKeys.get(args.document);
  const payloads = source[Symbol.asyncIterator]();
  const finished = async (): Promise<IteratorResult<ExecutionResult>> => {
    await payloads.return?.();
    return { done: true, value: undefined };
  };
  const results: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const payload = await payloads.next();
      if (payload.done) return { done: true, value: undefined };
      return { done: false, value: await executeOnce(args, key, payload.value) };
    },
    return: finished,
    async throw(error: unknown) {
      await finished();
      throw error;
    },
    [Symbol.asyncIterator]: () => results,
  };
  return results;
}
