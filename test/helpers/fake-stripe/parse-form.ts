/**
 * Stripe's request bodies are `application/x-www-form-urlencoded` with bracketed keys for nested
 * objects and arrays (`line_items[0][price_data][currency]=usd`, `metadata[account_id]=…`,
 * `expand[]=…`; https://docs.stripe.com/api "accepts form-encoded request bodies") — what the SDK's
 * `stringifyRequestData` writes. Read back into plain objects; numeric segments make arrays.
 */
export function parseForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> | unknown[] = root;
    path.forEach((segment, index) => {
      const last = index === path.length - 1;
      const nextIsIndex = !last && /^\d*$/.test(path[index + 1]);
      const slot = segment === '' && Array.isArray(node) ? String(node.length) : segment;
      const container = node as Record<string, unknown>;
      if (last) container[slot] = value;
      else {
        container[slot] ??= nextIsIndex ? [] : {};
        node = container[slot] as Record<string, unknown> | unknown[];
      }
    });
  }
  return root;
}
