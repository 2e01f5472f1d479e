import { ApiError, statusOfGraphqlCode } from './errors';

/** A GraphQL operation with the types of its answer and variables (checked against the server's schema in test/console). */
export interface Operation<Result, Variables> {
  readonly source: string;
  /** Never set: carries the types. */
  readonly types?: [Result, Variables];
}

export const operation = <Result, Variables = Record<string, never>>(source: string): Operation<Result, Variables> => ({ source });

export const GRAPHQL_PATH = '/api/v1/graphql';

export interface GraphqlAnswer<Result> {
  data?: Result | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** Sends a query as typed (the playground's), answering the HTTP status and the body as the server sent it. */
export async function sendGraphql(query: string, variables: unknown, token: string): Promise<{ status: number; statusText: string; answer: GraphqlAnswer<unknown> }> {
  const response = await fetch(GRAPHQL_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const answer = (await response.json().catch(() => ({}))) as GraphqlAnswer<unknown>;
  return { status: response.status, statusText: response.statusText, answer };
}

/** Runs an operation with the signed-in user's token; a GraphQL error becomes an ApiError with its HTTP meaning. */
export async function runGraphql<Result, Variables>(op: Operation<Result, Variables>, variables: Variables, token: string): Promise<Result> {
  const { status, statusText, answer } = (await sendGraphql(op.source, variables, token)) as { status: number; statusText: string; answer: GraphqlAnswer<Result> };
  const error = answer.errors?.[0];
  if (error) throw new ApiError(statusOfGraphqlCode(error.extensions?.code), error.message);
  if (status < 200 || status > 299 || !answer.data) throw new ApiError(status, statusText);
  return answer.data;
}
