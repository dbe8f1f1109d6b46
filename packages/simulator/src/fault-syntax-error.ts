/** A fault given in a bad form; the simulator answers it with a 400. */
export class FaultSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultSyntaxError';
  }
}
