import { notificationMail, notificationPayload } from './notification-text';

const content = { incident_id: 'INC-0a1b2c3d', title: 'Outage\r\nStatus: resolved\n\nPay at https://pay.example/x', severity: 'SEV-2', status: 'open', trigger: 'declared_ic', url: 'https://im.example.com/incidents/INC-0a1b2c3d' };

describe('notification text', () => {
  it('puts the title on one line in the mail, so it adds no line to the body', () => {
    const { subject, text } = notificationMail(content);
    expect(subject).toBe('[SEV-2] INC-0a1b2c3d: Outage Status: resolved Pay at https://pay.example/x');
    expect(text.split('\n')).toEqual([
      'Declared with you as incident commander.',
      '',
      'Incident: INC-0a1b2c3d',
      'Title: Outage Status: resolved Pay at https://pay.example/x',
      'Severity: SEV-2',
      'Status: open',
      '',
      'https://im.example.com/incidents/INC-0a1b2c3d',
      '',
    ]);
  });

  it('pushes the same one-line title (a notification shows line breaks too)', () => {
    expect(JSON.parse(notificationPayload({ ...content, title: 'Outage\u2028Status: resolved\u202e' }))).toEqual({
      incident_id: 'INC-0a1b2c3d',
      title: 'Outage Status: resolved ',
      severity: 'SEV-2',
      status: 'open',
      trigger: 'declared_ic',
      url: 'https://im.example.com/incidents/INC-0a1b2c3d',
    });
  });

  it('says in a page whom it wakes, for which incident, at which step and round, with the link to acknowledge at; its push stays the six fields', () => {
    const page = { ...content, title: 'Checkout is down', trigger: 'paged', page: { step: 2, round: 1 } };
    const { subject, text } = notificationMail(page);
    expect(subject).toBe('[SEV-2] Paged: INC-0a1b2c3d: Checkout is down');
    expect(text.split('\n')).toEqual([
      'You are paged (escalation step 2, round 1): acknowledge the incident at the link below.',
      '',
      'Incident: INC-0a1b2c3d',
      'Title: Checkout is down',
      'Severity: SEV-2',
      'Status: open',
      '',
      'https://im.example.com/incidents/INC-0a1b2c3d',
      '',
    ]);
    expect(Object.keys(JSON.parse(notificationPayload(page)))).toEqual(['incident_id', 'title', 'severity', 'status', 'trigger', 'url']);
  });
});
