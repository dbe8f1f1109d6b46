// One @, something on each side, a dot in the domain, no spaces: the rest is the mail server's to judge.
const addressPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether a (trimmed, lower-case) text is shaped like an email address, at most 254 characters (RFC 5321). */
export function isEmailAddress(text: string): boolean {
  return text.length <= 254 && addressPattern.test(text);
}
