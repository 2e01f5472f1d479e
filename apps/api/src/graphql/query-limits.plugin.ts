import type { ApolloServerPlugin } from '@apollo/server';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { type DocumentNode, GraphQLError, type GraphQLSchema, validate } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

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

/**
 * Refuses an operation that is too deep (graphql-armor's max-depth) or whose
 * estimated cost is over the limit (graphql-query-complexity: fields cost 1,
 * lists multiply by their limit, aliases add up) before it runs.
 */
export function queryLimitsPlugin(maxComplexity = MAX_QUERY_COMPLEXITY, maxDepth = MAX_QUERY_DEPTH): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
          const deep = depthOverLimit(schema, document, maxDepth);
          if (deep) throw tooComplex(deep.message.replace(/^Syntax Error: /, ''), { maxDepth });
          let complexity: number;
          try {
            complexity = getComplexity({
              schema,
              query: document,
              operationName: request.operationName,
              variables: request.variables,
              estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
            });
          } catch {
            // Variables that cannot be coerced: execution refuses them with BAD_USER_INPUT before running anything.
            return;
          }
          if (complexity > maxComplexity) {
            throw tooComplex(`Query complexity ${complexity} is over the limit of ${maxComplexity}`, { complexity, maxComplexity });
          }
        },
      };
    },
  };
}
