/**
 * `{ ...base, ...extra }`, for the request path. On Node 20 (V8 11.3), optimized code gives every
 * object that a spread makes and then adds a property to (one the spread did not copy, or a
 * second spread) a map of its own, through a slow runtime call (~0.5 µs): no two such objects
 * share a map, and each function that later reads them goes megamorphic. `Object.assign` onto a
 * fresh literal follows V8's cached map transitions, so its copies share one map. With the
 * other slow paths taken out in the same change, 0.91× the CPU per request (bench/README).
 */
export function withFields<T extends object, U extends object>(base: T, extra: U): WithFields<T, U> {
  // A parsed JSON object may own a `__proto__` key, which a spread copies and `Object.assign` would set as the prototype.
  if (Object.hasOwn(base, '__proto__') || Object.hasOwn(extra, '__proto__')) return { ...base, ...extra } as unknown as WithFields<T, U>;
  return Object.assign({}, base, extra) as unknown as WithFields<T, U>;
}

/**
 * The spread's type, member by member of a union (as `{ ...base, ...extra }` types it); a mapped
 * type rather than `Omit`, which would drop the named fields of a type with an index signature.
 */
export type WithFields<T, U> = T extends unknown ? { [K in keyof T as K extends keyof U ? never : K]: T[K] } & U : never;
