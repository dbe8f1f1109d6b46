import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { Empty, ErrorMessage, Loading } from '../components/status.js';
import { formatTime, formatUsd } from '../format.js';
import { managesMembers, roleNames, type Role } from '../roles.js';
import { useApi } from '../use-api.js';
import { InviteForm } from './invite-form.js';
import { MemberLimitForm } from './member-limit-form.js';
import { PendingInvites } from './pending-invites.js';

export interface MemberRow {
  user_id: string;
  name: string | null;
  email: string | null;
  role: Role;
  limit: number | null;
  limit_reset: 'daily' | 'weekly' | 'monthly' | null;
  usage: number;
  joined_at: string;
}

const roles: Role[] = ['owner', 'admin', 'member', 'viewer'];

/**
 * The account's people (`GET /v1/members`, any role). Owners and admins also invite, change
 * roles, remove and revoke invites; the server keeps the finer rules (an admin touches no owner,
 * the last owner stays) and the page shows its refusal as it is.
 */
export function MembersView({ token, role, userId }: { token: Credential; role: Role; userId: string }) {
  const members = useApi(() => callApi<{ data: MemberRow[]; next_cursor: string | null }>(token, 'GET', '/v1/members?limit=500'), [token]);
  const [invites, setInvites] = useState(0);
  const manages = managesMembers(role);
  const owners = members.data?.data.filter((member) => member.role === 'owner').length ?? 0;
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      {manages && <InviteForm token={token} inviterRole={role} onInvited={() => setInvites((count) => count + 1)} />}
      {members.loading && !members.data && <Loading what="members" />}
      {members.error !== undefined && <ErrorMessage error={members.error} onRetry={members.reload} />}
      {members.data && members.data.data.length === 0 && <Empty>No members.</Empty>}
      {members.data && members.data.data.length > 0 && (
        <ul class="key-list" aria-label="Members">
          {members.data.data.map((member) => (
            <MemberCard
              key={member.user_id}
              token={token}
              member={member}
              viewerRole={role}
              self={member.user_id === userId}
              // The last owner is never demoted or removed (the server refuses it): no button for it.
              lastOwner={member.role === 'owner' && owners === 1}
              onChanged={members.reload}
            />
          ))}
        </ul>
      )}
      {manages && <PendingInvites token={token} version={invites} />}
    </section>
  );
}

function limitText(member: MemberRow): string {
  if (member.limit === null) return 'no limit';
  return `${formatUsd(member.limit)}${member.limit_reset ? ` ${member.limit_reset}` : ''}`;
}

function MemberCard({ token, member, viewerRole, self, lastOwner, onChanged }: { token: Credential; member: MemberRow; viewerRole: Role; self: boolean; lastOwner: boolean; onChanged: () => void }) {
  const [role, setRole] = useState<Role>(member.role);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const label = member.name ?? member.email ?? member.user_id;
  // An admin changes and removes no owner, and makes none (docs/sign-in.md); anyone may leave.
  const mayChange = managesMembers(viewerRole) && (viewerRole === 'owner' || member.role !== 'owner');
  const roleEditable = mayChange && !lastOwner;
  const choices = viewerRole === 'owner' ? roles : roles.filter((choice) => choice !== 'owner');
  const act = async (method: 'PATCH' | 'DELETE', body?: unknown) => {
    setError(null);
    try {
      await callApi(token, method, `/v1/members/${encodeURIComponent(member.user_id)}`, body);
      setConfirming(false);
      onChanged();
    } catch (caught) {
      setError(caught);
    }
  };
  return (
    <li class="card" aria-label={`Member ${label}`} data-user-id={member.user_id}>
      <div class="key-head">
        <strong>{label}</strong>
        {member.email && member.email !== label && <span class="muted">{member.email}</span>}
        <span class="badge" data-testid="member-role">
          {roleNames[member.role]}
        </span>
        {self && <span class="badge">you</span>}
      </div>
      <dl class="details">
        <dt>Joined</dt>
        <dd>{formatTime(member.joined_at)}</dd>
        <dt>Usage of its keys</dt>
        <dd>{formatUsd(member.usage)}</dd>
        <dt>Limit</dt>
        <dd class="member-limit">{limitText(member)}</dd>
      </dl>
      {roleEditable && (
        <form
          class="filters"
          aria-label={`Role of ${label}`}
          onSubmit={(event) => {
            event.preventDefault();
            void act('PATCH', { role });
          }}
        >
          <label>
            Role
            <select value={role} onChange={(event) => setRole((event.target as HTMLSelectElement).value as Role)}>
              {choices.map((choice) => (
                <option key={choice} value={choice}>
                  {roleNames[choice]}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={role === member.role}>
            Change role
          </button>
        </form>
      )}
      {/* Member limits come with the members API's PATCH: offered when the rows carry them. */}
      {mayChange && 'limit' in member && <MemberLimitForm token={token} member={member} label={label} onSaved={onChanged} />}
      {(mayChange || self) && !lastOwner && (
        <div class="actions">
          {confirming ? (
            <>
              <button type="button" class="danger" aria-label={`Confirm removing ${label}`} onClick={() => void act('DELETE')}>
                {self ? 'Confirm leaving' : 'Confirm removal'}
              </button>
              <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          ) : (
            <button type="button" class="danger" aria-label={self ? 'Leave this account' : `Remove ${label}`} onClick={() => setConfirming(true)}>
              {self ? 'Leave' : 'Remove'}
            </button>
          )}
        </div>
      )}
      {confirming && !self && <p class="muted">Removing revokes the keys {label} made in this account.</p>}
      {error !== null && <ErrorMessage error={error} />}
    </li>
  );
}
