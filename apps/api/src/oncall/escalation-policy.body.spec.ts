import { InvalidError } from '@im/incidents';
import { parseEscalationPolicyBody } from './escalation-policy.body';

describe('parseEscalationPolicyBody', () => {
  const steps = [{ delay_seconds: 300, targets: [{ type: 'schedule', id: 'sc1' }, { type: 'user', id: 'ann', extra: true }] }];

  it('gives the name, steps and repeat (0 when absent)', () => {
    expect(parseEscalationPolicyBody({ name: 'Primary', steps })).toEqual({
      name: 'Primary',
      steps: [{ delay_seconds: 300, targets: [{ type: 'schedule', id: 'sc1' }, { type: 'user', id: 'ann' }] }],
      repeat: 0,
    });
    expect(parseEscalationPolicyBody({ name: 'Primary', steps, repeat: 2 }).repeat).toBe(2);
  });

  it.each([
    [{ name: 'P' }, 'steps is required and must be a list'],
    [{ name: 'P', steps: [1] }, 'steps[0] is required and must be an object; steps[0].delay_seconds is required and must be a number; steps[0].targets is required and must be a list'],
    [{ name: 'P', steps: [{ delay_seconds: '60', targets: [{ type: 'user' }] }] }, 'steps[0].delay_seconds is required and must be a number; steps[0].targets[0].id is required and must be a string'],
    [{ name: 'P', steps, repeat: '1' }, 'repeat is required and must be a number'],
  ])('refuses %j: %s', (body, message) => {
    expect(() => parseEscalationPolicyBody(body)).toThrow(new InvalidError(message));
  });
});
