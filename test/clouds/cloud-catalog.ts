/** The catalog pieces and the tool the cloud suites share (each suite names its own providers). */

export interface EndpointOptions {
  pricing?: string;
  parameters?: string;
  maxCompletionTokens?: number;
}

/** One endpoint of a catalog model, as YAML under its `endpoints:`. */
export function cloudEndpoint(provider: string, upstream: string, options: EndpointOptions = {}): string {
  const parameters = options.parameters ?? '[max_tokens, temperature, top_p, stop, tools, tool_choice]';
  return `      - provider: ${provider}\n        model: ${upstream}\n        pricing: ${options.pricing ?? '{prompt: 1, completion: 2}'}\n        supported_parameters: ${parameters}\n        max_completion_tokens: ${options.maxCompletionTokens ?? 1000}\n`;
}

/** One catalog model with its endpoints (from `cloudEndpoint`), as YAML under `models:`. */
export function cloudModel(id: string, label: string, endpoints: string, options: { contextLength?: number; input?: string } = {}): string {
  return `  - id: ${id}\n    name: "${label}: ${id}"\n    context_length: ${options.contextLength ?? 32000}\n    modalities: {input: ${options.input ?? '[text]'}, output: [text]}\n    endpoints:\n${endpoints}`;
}

/** The function tool every cloud suite offers, in the JSON Schema shape the styles share. */
export const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
