const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string of a parsed YAML tree. Done after
 * parsing, on string values only, so a variable's content can never change the YAML structure.
 * An unset variable becomes the empty string (or the default).
 */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === 'string') {
    return value.replace(reference, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      return found !== undefined && found !== '' ? found : (fallback ?? '');
    });
  }
  if (Array.isArray(value)) return value.map((entry) => interpolateEnv(entry, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, interpolateEnv(entry, env)]));
  }
  return value;
}
