/**
 * The Anthropic wire types live in `wire/anthropic/wire-types.ts`, shared by the Messages style
 * and this adapter. This path answers only for `src/simulator/anthropic-protocol.ts`, which still
 * imports it until the simulator becomes its own package with no import from src/ (issue 47,
 * item 5); nothing else may import it, and it goes when that import does.
 */
export type * from '../../wire/anthropic/wire-types.js';
