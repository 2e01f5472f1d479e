import { createTransport } from 'nodemailer';
import type { SendOutcome } from '../outbound-channel';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** The same on every attempt of one notification: a mail client shows a re-delivery as the one mail. */
  messageId: string;
}

/**
 * SMTP (nodemailer) over one pooled connection, kept while mail goes and
 * closed after the timeout idle: a connection per mail cost its greeting and
 * handshake each time (a server's greeting delay alone, 100 ms at
 * smtp-server), so 1,000 pages at once took minutes (docs/benchmarks.md,
 * "Paging"). One connection: the worker sends one mail at a time, in ledger order.
 */
export class MailSender {
  private readonly transport;

  constructor(smtpUrl: string, private readonly from: string, timeoutMs: number) {
    this.transport = createTransport({ url: smtpUrl, pool: true, maxConnections: 1, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
  }

  /**
   * Resolves with the outcome, never rejects: `smtp_error` when the server is
   * unreachable or answers a transient (4xx) error, to be retried;
   * `smtp_rejected` when it refuses for good (5xx, e.g. no such mailbox): a
   * retry would not help, and would hold up everyone else's mail.
   */
  async send(mail: Mail): Promise<SendOutcome> {
    try {
      await this.transport.sendMail({ from: this.from, to: mail.to, subject: mail.subject, text: mail.text, messageId: mail.messageId });
      return { statusCode: 250, error: null };
    } catch (error) {
      const code = (error as { responseCode?: unknown }).responseCode;
      if (typeof code === 'number' && code >= 500) return { statusCode: code, error: 'smtp_rejected', final: true };
      return { statusCode: typeof code === 'number' ? code : null, error: 'smtp_error' };
    }
  }

  close(): void {
    this.transport.close();
  }
}
