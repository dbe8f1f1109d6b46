/**
 * Where the instance stands between start and exit, for what `/ready` answers and how answers
 * treat their connection. Draining starts at SIGTERM: `/ready` answers 503 so that a load balancer
 * stops routing here, while requests still arriving are served with `Connection: close`, so each
 * kept-alive client moves to a fresh connection (through the balancer) after its next answer.
 */
export class ServerLifecycle {
  private isDraining = false;

  get draining(): boolean {
    return this.isDraining;
  }

  startDraining(): void {
    this.isDraining = true;
  }
}
