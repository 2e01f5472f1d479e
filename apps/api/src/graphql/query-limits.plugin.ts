import type { ApolloServerPlugin } from '@apollo/server';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { type DocumentNode, GraphQLError, type GraphQLSchema, validate } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

/** Fields a query may cost, a list's counting `limit` times: the published bound (docs/security.md, API4), not a tuning knob. */
export const MAX_QUERY_COMPLEXITY = 1000;
/** Nested selections and fragment spreads; introspection is bounded by graphql-js's own rule instead. */
export const MAX_QUERY_DEPTH = 10;

const tooComplex = (message: string, limits: Record<string, number>) =>
  new GraphQLError(message, { extensions: { code: 'QUERY_TOO_COMPLEX', ...limits, http: { status: 400 } } });

/** The depth graphql-armor measures, when it is over the limit. */
function depthOverLimit(schema: GraphQLSchema, document: DocumentNode, max: number): GraphQLError | undefined {
  let rejected: GraphQLError | undefined;
  validate(schema, document, [maxDepthRule({ n: max, propagateOnRejection: false, onReject: [(_, error) => (rejected = error as GraphQLError)] })]);
  return rejected;
}

type Verdict = { message: string; limits: Record<string, number> } | undefined;

/**
 * Verdicts by schema, document and the rest of the input. Apollo hands every
 * request with the same query text the same parsed document (its document
 * cache), and walking it twice cost more than running most queries.
 */
const verdicts = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Verdict>>>();
/** Inputs remembered per document (distinct variables, limits), and the longest remembered. */
const MAX_INPUTS_PER_DOCUMENT = 100;
const MAX_INPUT_KEY_CHARS = 1024;

/**
 * Why an operation is refused before it runs: too deep (graphql-armor's
 * max-depth) or estimated too costly (graphql-query-complexity: fields cost 1,
 * lists multiply by their limit, aliases add up). Undefined when it may run.
 * Shared by HTTP (the plugin below) and the socket (graphql-ws.server.ts).
 */
export function queryLimitError(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
  maxComplexity = MAX_QUERY_COMPLEXITY,
  maxDepth = MAX_QUERY_DEPTH,
): GraphQLError | undefined {
  const key = JSON.stringify([operationName ?? null, variables ?? null, maxComplexity, maxDepth]);
  const bySchema = verdicts.get(schema) ?? verdicts.set(schema, new WeakMap()).get(schema)!;
  const byInput = bySchema.get(document) ?? bySchema.set(document, new Map()).get(document)!;
  const verdict = byInput.has(key) ? byInput.get(key) : judge(schema, document, operationName, variables, maxComplexity, maxDepth);
  if (!byInput.has(key) && key.length <= MAX_INPUT_KEY_CHARS && byInput.size < MAX_INPUTS_PER_DOCUMENT) byInput.set(key, verdict);
  // A new error each time: Apollo may add to the one it is given.
  return verdict && tooComplex(verdict.message, verdict.limits);
}

function judge(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
  maxComplexity: number,
  maxDepth: number,
): Verdict {
  const deep = depthOverLimit(schema, document, maxDepth);
  if (deep) return { message: deep.message.replace(/^Syntax Error: /, ''), limits: { maxDepth } };
  let complexity: number;
  try {
    complexity = getComplexity({
      schema,
      query: document,
      operationName: operationName ?? undefined,
      variables: variables ?? undefined,
      estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
    });
  } catch {
    // Variables that cannot be coerced: execution refuses them with BAD_USER_INPUT before running anything.
    return undefined;
  }
  return complexity > maxComplexity ? { message: `Query complexity ${complexity} is over the limit of ${maxComplexity}`, limits: { complexity, maxComplexity } } : undefined;
}

/** Refuses, over HTTP, an operation that queryLimitError refuses, before it runs. */
export function queryLimitsPlugin(maxComplexity = MAX_QUERY_COMPLEXITY, maxDepth = MAX_QUERY_DEPTH): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          const refused = queryLimitError(schema, document, request.operationName, request.variables, maxComplexity, maxDepth);
          if (refused) throw refused;
        },
      };
    },
  };
}
