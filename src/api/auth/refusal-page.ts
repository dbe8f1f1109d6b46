import type { FastifyReply } from 'fastify';

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * What a browser that followed a sign-in link (a magic link, an OIDC callback) sees when it
 * cannot be signed in: a short page that says why, with a way back, rather than a JSON envelope.
 */
export function sendRefusalPage(reply: FastifyReply, status: number, title: string, message: string): FastifyReply {
  const text = (value: string) => value.replace(/[&<>"']/g, (character) => escapes[character]);
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${text(title)}</title></head>` +
        `<body><h1>${text(title)}</h1><p>${text(message)}</p><p><a href="/">Back to the page</a></p></body></html>`,
    );
}
