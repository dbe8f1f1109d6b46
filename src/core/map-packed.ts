/**
 * `list.map(fn)` whose result is of one kind of array whichever tier of V8 runs the caller. On
 * Node 20 (V8 11.3), `Array.prototype.map` answers a packed array in the interpreter and a holey
 * one once TurboFan has compiled the caller (it inlines `map` and pre-sizes the result), and the
 * two are of different maps. Each function that reads the result was first optimized for the
 * packed kind, so when its producer is optimized it is thrown away ("wrong map") and runs in the
 * interpreter until compiled again; down a chain of such functions (the books writer's, run once
 * per batch) that took PostgreSQL ~10,000 requests to reach its steady cost (bench/README).
 * Pushing onto a fresh array keeps it packed in every tier.
 */
export function mapPacked<T, U>(list: readonly T[], fn: (value: T, index: number) => U): U[] {
  const result: U[] = [];
  for (let index = 0; index < list.length; index += 1) result.push(fn(list[index], index));
  return result;
}
