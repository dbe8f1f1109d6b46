/** Moderations (OpenAI's `/moderations`), as the inbound route and the provider protocol see them. */
export type ModerationInput = { type: 'text'; text: string } | { type: 'image_url'; url: string };

export interface ModerationRequest {
  inputs: ModerationInput[];
  /**
   * True when the inputs are the parts of one multi-modal input (OpenAI's array of `{type}`
   * objects), answered with one result; otherwise each input is a text answered with its own
   * result (a string, or an array of strings).
   */
  multimodal?: boolean;
}

/** OpenAI's per-input result object, carried as the provider answered it (the fields are OpenAI's own). */
export type ModerationResultItem = Record<string, unknown>;

export interface ModerationResult {
  /** The provider's id of the moderation. */
  id: string;
  results: ModerationResultItem[];
  /** Input tokens where the provider reports them, else the gateway's estimate (`estimated`). */
  promptTokens: number;
  estimated: boolean;
}
