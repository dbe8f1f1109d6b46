/** The token of an invite link's path (`/invites/{token}`, contract §8), or null on any other page. */
export function inviteTokenOf(pathname: string): string | null {
  const match = /^\/invites\/([A-Za-z0-9_-]+)\/?$/.exec(pathname);
  return match ? match[1] : null;
}
