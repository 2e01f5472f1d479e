import { MailReceiver } from '../../../../test/support/mail-receiver';
import { MailSender } from './mail-sender';

/**
 * The SMTP sender against a real SMTP server (smtp-server): many mails over
 * one connection, and mail still going after the server went down and came back.
 */
const smtp = new MailReceiver();
let sender: MailSender;

beforeAll(async () => {
  sender = new MailSender(await smtp.start(), 'Incidents <im@example.com>', 2000);
});
afterAll(async () => {
  sender.close();
  await smtp.stop();
});

const mail = (n: number) => ({ to: 'bob@example.com', subject: `Paged: INC-${n}`, text: 'You are paged.', messageId: `<ntf_${n}@notifications.incident-service>` });

it('sends mail after mail over one connection, each accepted under its own Message-ID', async () => {
  const before = smtp.connections;
  for (let n = 1; n <= 5; n++) expect(await sender.send(mail(n))).toEqual({ statusCode: 250, error: null });
  expect(smtp.to('bob@example.com').map((m) => m.header('message-id'))).toEqual([1, 2, 3, 4, 5].map((n) => `<ntf_${n}@notifications.incident-service>`));
  expect(smtp.connections - before).toBe(1);
});

it('answers smtp_error while the server is down, and sends again once it is back on a new connection', async () => {
  await sender.send(mail(6));
  await smtp.stop();
  expect(await sender.send(mail(7))).toEqual({ statusCode: null, error: 'smtp_error' });
  await smtp.start();
  const before = smtp.connections;
  expect(await sender.send(mail(8))).toEqual({ statusCode: 250, error: null });
  expect(smtp.to('bob@example.com').map((m) => m.header('subject')).slice(-2)).toEqual(['Paged: INC-6', 'Paged: INC-8']);
  expect(smtp.connections - before).toBe(1);
});
