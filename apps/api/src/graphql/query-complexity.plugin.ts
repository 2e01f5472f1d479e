import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

export const MAX_QUERY_COMPLEXITY = 1000;

/**
 * Refuses an operation whose estimated cost is over the limit before it runs
 * (graphql-query-complexity: fields cost 1, lists multiply by their limit).
 */
export function queryComplexityPlugin(max = MAX_QUERY_COMPLEXITY): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema }) {
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
          if (complexity > max) {
            throw new GraphQLError(`Query complexity ${complexity} is over the limit of ${max}`, {
              extensions: { code: 'QUERY_TOO_COMPLEX', complexity, maxComplexity: max, http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}
