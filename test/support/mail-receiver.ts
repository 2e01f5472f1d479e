import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string;
  raw: string;
  /** The body as the reader sees it: quoted-printable decoded (a long line or an `=` is encoded so on the wire). */
  text: string;
  header: (name: string) => string | undefined;
  /** When the server accepted it (epoch ms). */
  receivedAt: number;
}

/** RFC 2045 quoted-printable: soft line breaks dropped, `=XX` bytes decoded as UTF-8. */
function quotedPrintable(body: string): string {
  const escaped = body.replace(/%/g, '%25').replace(/=\r?\n/g, '');
  return decodeURIComponent(escaped.replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`));
}

/**
 * A real SMTP server (smtp-server, from the Nodemailer project) on 127.0.0.1
 * that keeps every mail it accepts. It can go down and come back on the same
 * port, as a mail server being restarted does.
 */
export class MailReceiver {
  readonly mails: ReceivedMail[] = [];
  /** Recipients refused for good (550), as a server without that mailbox does. */
  readonly unknownMailboxes = new Set<string>();
  /** Recipients refused for now (450, mailbox busy): the sender is to try again later. */
  readonly busyMailboxes = new Set<string>();
  /** While set, a mail is kept but not answered until it resolves (the client waits, as on a slow server). */
  holdAnswers?: Promise<void>;
  /** Errors of connections in mid-mail, as the server logs them: a sender killed while sending resets its connection. */
  readonly connectionErrors: Error[] = [];
  /** Connections the server has accepted (a sender keeping its connection opens one for many mails). */
  connections = 0;
  private server?: SMTPServer;
  port = 0;

  async start(port = this.port): Promise<string> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      // Stopped as a restarting server stops: open connections are closed (421) at once, not after 30 s.
      closeTimeout: 100,
      onConnect: (_session, callback) => {
        this.connections++;
        callback();
      },
      onRcptTo: (address, _session, callback) => {
        if (this.busyMailboxes.has(address.address)) return callback(Object.assign(new Error('4.2.1 Mailbox busy, try again later'), { responseCode: 450 }));
        if (!this.unknownMailboxes.has(address.address)) return callback();
        callback(Object.assign(new Error('5.1.1 No such mailbox'), { responseCode: 550 }));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          // Unfolded headers: a long subject is folded over several lines.
          const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
          const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
          const header = (name: string) => head.split('\r\n').find((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`))?.slice(name.length + 1).trim();
          this.mails.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            raw,
            text: header('content-transfer-encoding')?.toLowerCase() === 'quoted-printable' ? quotedPrintable(body) : body,
            header,
            receivedAt: Date.now(),
          });
          void (this.holdAnswers ?? Promise.resolve()).then(() => callback());
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    // smtp-server emits a client's dropped connection in mid-mail (a sender killed while sending) on the server; a
    // real server logs it and goes on, and unheard it would end the test's process at the second one.
    server.removeAllListeners('error');
    server.on('error', (error: Error) => this.connectionErrors.push(error));
    this.server = server;
    this.port = (server.server.address() as AddressInfo).port;
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  to(address: string): ReceivedMail[] {
    return this.mails.filter((mail) => mail.to.includes(address));
  }

  async waitFor(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > until) throw new Error(`timed out waiting for mail; received: ${this.mails.map((m) => `${m.to} ${m.header('subject')}`).join('; ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
