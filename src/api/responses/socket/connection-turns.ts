import type { PriorTurn } from '../continue-previous-response.js';

/**
 * The responses one WebSocket connection produced, kept in memory for `previous_response_id`
 * on the same connection — with `store: false` too, as OpenAI's WebSocket mode does. Bounded:
 * the most recent `capacity` turns; a turn whose continuation failed is evicted, so a client
 * cannot continue from a state the failed turn may have left half-applied.
 */
export class ConnectionTurns {
  private readonly turns = new Map<string, PriorTurn>();
  constructor(private readonly capacity = 16) {}

  get(id: string): PriorTurn | undefined {
    return this.turns.get(id);
  }

  remember(id: string, turn: PriorTurn): void {
    this.turns.delete(id);
    this.turns.set(id, turn);
    while (this.turns.size > this.capacity) this.turns.delete(this.turns.keys().next().value as string);
  }

  forget(id: string): void {
    this.turns.delete(id);
  }
}
