/**
 * Claude model families that refuse `temperature` and `top_p` in one request (400 "temperature and
 * top_p cannot both be specified for this model. Please use only one."): Claude Opus 4.1 and every
 * model from the 4.5 generation on. Anthropic's migration guide: "Use only temperature OR top_p,
 * not both" (https://platform.claude.com/docs/en/about-claude/models/migrating-to-claude-4).
 * Earlier Claude models (3.x, Sonnet 4, Opus 4) take both, and so may other vendors' models behind
 * an Anthropic-compatible API, so the rule goes by family, not by protocol. Matched anywhere in the
 * provider's model name: Anthropic's ids (`claude-sonnet-4-5-20250929`) and the ids that carry
 * them (Bedrock's `us.anthropic.claude-opus-4-1-20250805-v1:0`); a date is not a version
 * (`claude-sonnet-4-20250514` is Sonnet 4).
 */
const oneSamplerFamilies: readonly RegExp[] = [/claude-opus-4-1(?!\d)/, /claude-(?:opus|sonnet|haiku)-4-(?:[5-9]|1\d)(?!\d)/, /claude-[a-z]+-(?:[5-9]|1\d)(?!\d)/];

/** True when the Claude model named (the provider's model name) refuses `temperature` with `top_p`. */
export function refusesTemperatureWithTopP(providerModel: string): boolean {
  const id = providerModel.toLowerCase();
  return oneSamplerFamilies.some((family) => family.test(id));
}
