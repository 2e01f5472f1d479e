import type { PolicyDecisionPoint, PolicyInput } from './policy.port';

const CLEARANCES = ['public', 'internal', 'restricted', 'confidential'];
const RANK: Record<string, number> = { public: 0, internal: 1, restricted: 2, confidential: 3 };
const CLASS_SETS = [[], ['pii'], ['phi'], ['legal_hold'], ['pii', 'phi']];
const ACCESS_SETS = [[], ['pii'], ['phi', 'legal_hold'], ['pii', 'phi', 'legal_hold']];

/** What decisions.md says, written out independently of any adapter. */
function expected(clearance: string, access: string[], visibility: string | undefined, classes: string[], roleGranted: boolean) {
  const visible = roleGranted && RANK[visibility ?? 'internal'] <= RANK[clearance];
  const missing = classes.filter((c) => !access.includes(c));
  const redact = missing.length === 0 ? [] : missing.includes('pii') ? ['content', 'data', 'actor'] : ['content', 'data'];
  return { visible, redact };
}

/** The behaviour every PDP adapter must show for the timeline policy. */
export function describePdpContract(adapter: string, open: () => Promise<{ pdp: PolicyDecisionPoint; close: () => Promise<void> }>): void {
  describe(`PDP contract: ${adapter}`, () => {
    let pdp: PolicyDecisionPoint;
    let close: () => Promise<void>;
    beforeAll(async () => ({ pdp, close } = await open()));
    afterAll(() => close());

    const resources = [undefined, ...CLEARANCES].flatMap((visibility) =>
      CLASS_SETS.map((data_class) => ({ ...(visibility ? { visibility } : {}), data_class })),
    );

    it.each(CLEARANCES.flatMap((clearance) => ACCESS_SETS.map((access) => [clearance, access] as const)))(
      'decides every visibility × data class for clearance %s with data_access %j',
      async (clearance, access) => {
        const input: PolicyInput = {
          subject: { sub: 'u', roles: ['timeline.reader'], clearance, data_access: [...access] },
          action: 'timeline.read',
          resources,
        };
        const decisions = await pdp.decide(input);
        expect(decisions).toEqual(resources.map((r) => expected(clearance, [...access], r.visibility, r.data_class, true)));
      },
    );

    it('shows nothing to a caller without the role for the action', async () => {
      const decisions = await pdp.decide({
        subject: { sub: 'u', roles: ['timeline.reader'], clearance: 'confidential', data_access: [] },
        action: 'timeline.export',
        resources: [{ visibility: 'public', data_class: [] }],
      });
      expect(decisions).toEqual([{ visible: false, redact: [] }]);
    });

    it('answers an empty batch with no decisions', async () => {
      const input: PolicyInput = { subject: { sub: 'u', roles: [], clearance: 'public', data_access: [] }, action: 'timeline.read', resources: [] };
      expect(await pdp.decide(input)).toEqual([]);
    });
  });
}
