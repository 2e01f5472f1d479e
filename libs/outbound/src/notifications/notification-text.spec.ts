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
});
