import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { GRAPHQL_PATH } from './graphql-path';

/**
 * Over HTTP a subscription has nothing to follow: Apollo would run it once as
 * a query and fail it as an internal error. It is refused as the client's
 * mistake (400) instead, naming where subscriptions are served.
 */
export function subscriptionsOverSocketPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation }) {
          if (operation?.operation !== 'subscription') return;
          throw new GraphQLError(`Subscriptions are served over WebSocket (graphql-transport-ws, the graphql-ws library) at ${GRAPHQL_PATH}`, {
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        },
      };
    },
  };
}
