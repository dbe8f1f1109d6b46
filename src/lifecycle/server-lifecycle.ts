/**
 * A connection that outlives its upgrade (a Responses WebSocket): told when draining starts, and
 * cut when the grace period is over.
 */
export interface DrainableConnection {
  /** Finish what is under way, refuse what comes next, then close. */
  drain(): void;
  /** End what is still under way in-band, then close; resolves once closed. */
  cut(): Promise<void>;
}

/**
 * Where the instance stands between start and exit, for what `/ready` answers and how answers
 * treat their connection. Draining starts at SIGTERM: `/ready` answers 503 so that a load balancer
 * stops routing here, while requests still arriving are served with `Connection: close`, so each
 * kept-alive client moves to a fresh connection (through the balancer) after its next answer.
 * Long-lived connections (WebSockets) register here, as Node's server knows them no more once
 * upgraded: they drain at the same moment and are cut when the grace period ends.
 */
export class ServerLifecycle {
  private isDraining = false;
  private readonly connections = new Set<DrainableConnection>();

  get draining(): boolean {
    return this.isDraining;
  }

  startDraining(): void {
    this.isDraining = true;
    for (const connection of this.connections) connection.drain();
  }

  /** Registers an open connection; call the returned function when it has closed. */
  track(connection: DrainableConnection): () => void {
    this.connections.add(connection);
    return () => this.connections.delete(connection);
  }

  /** The grace period is over: every connection still open ends what it has under way and closes. */
  async cutAll(): Promise<void> {
    await Promise.all([...this.connections].map((connection) => connection.cut()));
  }
}
