import {
  type PolicyDecision,
  type PolicyDecisionPoint,
  type PolicyInput,
  PolicyUnavailableError,
} from '../policy.port';

/** Where policy/timeline.rego publishes its decisions in OPA's data API. */
export const OPA_DECISIONS_PATH = '/v1/data/incident/timeline/decisions';

const isDecision = (value: unknown): value is PolicyDecision =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as PolicyDecision).visible === 'boolean' &&
  Array.isArray((value as PolicyDecision).redact) &&
  (value as PolicyDecision).redact.every((f) => f === 'content' || f === 'data' || f === 'actor');

/**
 * Asks an Open Policy Agent over its data API, within a short timeout. Any
 * failure, including an undefined result, is PolicyUnavailableError: the
 * caller refuses the read (fail-closed), never allows it.
 */
export class OpaPdp implements PolicyDecisionPoint {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async decide(input: PolicyInput): Promise<PolicyDecision[]> {
    const body = await this.request(OPA_DECISIONS_PATH, { method: 'POST', body: JSON.stringify({ input }) });
    const result = (body as { result?: unknown } | null)?.result;
    if (result === undefined) throw new PolicyUnavailableError('OPA has no decision for the timeline policy (undefined): is timeline.rego loaded?');
    if (!Array.isArray(result) || result.length !== input.resources.length || !result.every(isDecision)) {
      throw new PolicyUnavailableError('OPA answered a malformed decision');
    }
    return result;
  }

  async ping(): Promise<void> {
    await this.request('/health', { method: 'GET' });
  }

  private reason(error: Error): string {
    if (error.name === 'TimeoutError') return `no answer within ${this.timeoutMs} ms`;
    if (error.name === 'SyntaxError') return 'the answer is not JSON';
    const code = (error.cause as { code?: unknown } | undefined)?.code;
    return `cannot connect${typeof code === 'string' && /^[A-Z_]+$/.test(code) ? ` (${code})` : ''}`;
  }

  private async request(path: string, init: RequestInit): Promise<unknown> {
    try {
      const response = await fetch(new URL(path, this.baseUrl), {
        ...init,
        headers: { 'content-type': 'application/json' },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!response.ok) throw new PolicyUnavailableError(`OPA answered HTTP ${response.status}`);
      return await response.json();
    } catch (error) {
      if (error instanceof PolicyUnavailableError) throw error;
      // Clients read this message: it says why, never where OPA is (its address is the operator's OPA_URL).
      throw new PolicyUnavailableError(`OPA is unavailable: ${this.reason(error as Error)}`);
    }
  }
}
