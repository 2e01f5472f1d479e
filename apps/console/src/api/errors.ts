/** A refused or failed call, with the server's `{error, status}` (REST) or GraphQL code mapped to a status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const CODE_STATUS: Record<string, number> = {
  BAD_USER_INPUT: 400,
  // An operation the server's schema does not have (a console ahead of its api): said in words, not as a server fault.
  GRAPHQL_VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  SERVICE_UNAVAILABLE: 503,
};

export const statusOfGraphqlCode = (code: unknown): number => (typeof code === 'string' && CODE_STATUS[code]) || 500;

/** What a responder reads when something did not work: what happened, and what to do. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The service could not be reached. Check your connection and try again.';
  const said = error.message.replace(/\.$/, '');
  switch (error.status) {
    case 400:
      return `That was not accepted: ${said}.`;
    case 401:
      return 'Your sign-in has expired or is not valid. Sign in again.';
    case 403:
      return `You are not allowed to do this: ${said}.`;
    case 404:
      return 'This incident does not exist, or you may not see it.';
    case 409: {
      // The domain says "Cannot <move> incident <id>: it is <state>".
      const state = /: it is (\w+)/.exec(said)?.[1];
      return state ? `Not done: the incident is ${state} now. ${said}.` : `Not done: ${said}.`;
    }
    case 413:
      return 'That is too long to record. Shorten it and try again.';
    case 503:
      return `The service cannot answer right now (${said}). Try again in a moment.`;
    default:
      return `Something went wrong on the server (${error.status}). Try again; if it persists, tell the on-call engineer.`;
  }
}
