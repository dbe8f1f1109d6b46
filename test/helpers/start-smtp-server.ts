import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The message as received, quoted-printable soft breaks and escapes decoded. */
  text: string;
}

export interface TestSmtpServer {
  url: string;
  mails: ReceivedMail[];
  /** Resolves with the mails to `address` once there are `count` of them (rejects after `timeoutMs`). */
  waitForMails(address: string, count?: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** Undoes quoted-printable (RFC 2045 §6.7): soft line breaks and =XX escapes, as nodemailer writes long lines. */
function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A real SMTP server (the `smtp-server` package) on a free loopback port, keeping every message it accepts. */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()), text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  const mailsTo = (address: string) => mails.filter((mail) => mail.to.includes(address.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitForMails(address, count = 1, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (mailsTo(address).length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} mail(s) to ${address}, got ${mailsTo(address).length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return mailsTo(address);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
