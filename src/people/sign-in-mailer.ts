import nodemailer from 'nodemailer';

export interface SignInMailer {
  sendLink(to: string, link: string): Promise<void>;
  /** Any other mail of the service to its users (alerts), from the same sender. */
  sendText(message: { to: string[]; subject: string; text: string }): Promise<void>;
  close(): void;
}

/** Mails magic links (and alerts) through the operator's SMTP server (`auth.email.smtp_url`), by nodemailer. */
export function createSignInMailer(settings: { smtpUrl: string; from: string }, serviceName: string): SignInMailer {
  const transport = nodemailer.createTransport(settings.smtpUrl);
  return {
    async sendLink(to, link) {
      await transport.sendMail({
        from: settings.from,
        to,
        subject: `Sign in to ${serviceName}`,
        text: `Open this link to sign in to ${serviceName}:\n\n${link}\n\nIt works once, within 15 minutes. If you did not ask for it, ignore this mail.\n`,
      });
    },
    async sendText(message) {
      await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
    },
    close() {
      transport.close();
    },
  };
}
