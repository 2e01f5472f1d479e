export const GRAPHQL_PATH = '/api/v1/graphql';
