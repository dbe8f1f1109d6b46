import { parse as parseYaml } from 'yaml';

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/;

/**
 * Provider id → the environment variable its `api_key` (or Vertex `platform.service_account`, Bedrock `platform.access_key_id`) names, read from
 * the YAML before interpolation, so that the operator can be told which variable to set.
 */
export function readKeyVariables(text: string): Map<string, string> {
  const variables = new Map<string, string>();
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch {
    return variables;
  }
  const providers = (raw as { providers?: unknown } | null)?.providers;
  if (!Array.isArray(providers)) return variables;
  for (const entry of providers as Array<{ id?: unknown; api_key?: unknown; platform?: { service_account?: unknown; access_key_id?: unknown } }>) {
    // A Vertex service account, or an AWS access key id (Bedrock), stands in for the key.
    const platform = entry?.platform;
    const secret = typeof platform?.service_account === 'string' ? platform.service_account : typeof platform?.access_key_id === 'string' ? platform.access_key_id : entry?.api_key;
    const match = typeof secret === 'string' ? reference.exec(secret) : null;
    if (match && typeof entry.id === 'string') variables.set(entry.id, match[1]);
  }
  return variables;
}
