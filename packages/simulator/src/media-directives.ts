/**
 * Directives in an image prompt or speech input, for media tests: `[[sim:job_ms=5000]]` (a fal
 * job takes this long), `[[sim:fail]]` (a fal job ends failed), `[[sim:status=503]]` (the
 * request is answered with this error status). Unknown keys or bad values are errors, as with the
 * text protocols' directives, so that a typo never passes silently.
 */
export interface MediaDirectives {
  jobMs?: number;
  fail?: boolean;
  status?: number;
}

export class MediaDirectiveError extends Error {}

export function parseMediaDirectives(text: string): MediaDirectives {
  const directives: MediaDirectives = {};
  for (const match of text.matchAll(/\[\[sim:([^\]]*)\]\]/g)) {
    for (const entry of match[1].split(',').map((item) => item.trim()).filter(Boolean)) {
      const [key, value] = entry.split('=').map((item) => item.trim());
      if (key === 'fail' && value === undefined) directives.fail = true;
      else if (key === 'job_ms' && /^\d+$/.test(value ?? '')) directives.jobMs = Number(value);
      else if (key === 'status' && /^\d+$/.test(value ?? '') && Number(value) >= 400 && Number(value) <= 599) directives.status = Number(value);
      else throw new MediaDirectiveError(`unknown media directive '${entry}' (known: job_ms=N, fail, status=400..599)`);
    }
  }
  return directives;
}
