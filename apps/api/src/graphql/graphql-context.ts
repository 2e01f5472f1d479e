import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import DataLoader from 'dataloader';
import { GraphQLError } from 'graphql';
import type { Incident } from '@im/incidents';
import type { IncidentQueryService, Principal } from '@im/access';
import type { RequestAuthenticator } from '../auth/request-authenticator';

export interface GqlContext {
  principal: Principal;
  /** Per request: incidents looked up by id are fetched in one batch per tick. */
  incidents: DataLoader<string, Incident | undefined>;
}

/**
 * Every GraphQL request needs a valid token in every mode: without one the
 * answer is HTTP 401 with an UNAUTHENTICATED error, before any resolver runs.
 */
export function graphqlContextFactory(authenticator: RequestAuthenticator, incidents: IncidentQueryService) {
  return async (request: { headers: Record<string, unknown> }): Promise<GqlContext> => {
    let principal: Principal;
    try {
      principal = await authenticator.authenticate(request);
    } catch (error) {
      throw new GraphQLError((error as Error).message, { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
    }
    if (principal.integrationKey !== undefined) {
      throw new GraphQLError('An integration key is not accepted by GraphQL; use a token', { extensions: { code: 'FORBIDDEN', http: { status: 403 } } });
    }
    return contextFor(principal, incidents);
  };
}

/** The context of one operation of an authenticated caller (a request, or a subscription on the socket). */
export function contextFor(principal: Principal, incidents: IncidentQueryService): GqlContext {
  return {
    principal,
    incidents: new DataLoader(async (ids) => {
      const found = await incidents.findMany([...ids]);
      return ids.map((id) => found.get(id));
    }),
  };
}

export const GqlPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): Principal => GqlExecutionContext.create(context).getContext<GqlContext>().principal,
);

export const GqlIncidents = createParamDecorator(
  (_: unknown, context: ExecutionContext): GqlContext['incidents'] => GqlExecutionContext.create(context).getContext<GqlContext>().incidents,
);
