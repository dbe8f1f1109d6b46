import { adminActor, type AuditActor } from './record-audit.js';

/** Who made a change and from where, as a service that writes an audit entry takes it (contract §8). */
export interface AuditSource {
  actor: AuditActor;
  /** The request's address (`request.ip`); null when there is no request (the CLI). */
  ip: string | null;
}

/** The operator with no request behind it: the CLI, the demo, the warm-up. */
export const operatorSource: AuditSource = { actor: adminActor, ip: null };
