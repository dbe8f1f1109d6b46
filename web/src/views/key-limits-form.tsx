import { useState } from 'preact/hooks';
import { callApi, type Credential } from '../api.js';
import { ErrorMessage } from '../components/status.js';
import type { LimitReset } from '../limit-period.js';
import { ResetSelect } from '../components/reset-select.js';
import type { KeyRow } from './keys-view.js';

const toNumber = (text: string): number | null => (text.trim() === '' ? null : Number(text));
const toText = (value: number | null | undefined): string => (value === null || value === undefined ? '' : String(value));

/** PATCH /keys/{id}/limit: spending limit and its reset period, key-wide max prices and one model's max prices (empty clears). */
export function KeyLimitsForm({ token, keyRow, onSaved }: { token: Credential; keyRow: KeyRow; onSaved: () => void }) {
  const [limit, setLimit] = useState(toText(keyRow.limit));
  const [reset, setReset] = useState<LimitReset>(keyRow.limit_reset);
  const [prompt, setPrompt] = useState(toText(keyRow.max_price?.prompt));
  const [completion, setCompletion] = useState(toText(keyRow.max_price?.completion));
  const [model, setModel] = useState('');
  const [modelPrompt, setModelPrompt] = useState('');
  const [modelCompletion, setModelCompletion] = useState('');
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const maxPrompt = toNumber(prompt);
    const maxCompletion = toNumber(completion);
    const modelMaxPrices: Record<string, { prompt: number | null; completion: number | null } | null> = { ...keyRow.model_max_prices };
    if (model.trim() !== '') {
      const cap = { prompt: toNumber(modelPrompt), completion: toNumber(modelCompletion) };
      if (cap.prompt === null && cap.completion === null) delete modelMaxPrices[model.trim()];
      else modelMaxPrices[model.trim()] = cap;
    }
    try {
      await callApi(token, 'PATCH', `/v1/keys/${encodeURIComponent(keyRow.id)}/limit`, {
        limit: toNumber(limit),
        limit_reset: reset,
        max_price: maxPrompt === null && maxCompletion === null ? null : { prompt: maxPrompt, completion: maxCompletion },
        model_max_prices: modelMaxPrices,
      });
      onSaved();
    } catch (caught) {
      setError(caught);
    }
  };
  const input = (label: string, value: string, set: (text: string) => void) => (
    <label>
      {label}
      <input type="number" min="0" step="any" value={value} onInput={(event) => set((event.target as HTMLInputElement).value)} />
    </label>
  );
  return (
    <form class="filters" aria-label={`Limits of ${keyRow.name}`} onSubmit={submit}>
      {input('Spending limit (USD)', limit, setLimit)}
      <ResetSelect value={reset} onChange={setReset} />
      {input('Max prompt price (USD per 1M tokens)', prompt, setPrompt)}
      {input('Max completion price (USD per 1M tokens)', completion, setCompletion)}
      <label>
        Model for a per-model max price
        <input value={model} placeholder="developer/model" onInput={(event) => setModel((event.target as HTMLInputElement).value)} />
      </label>
      {input('Model max prompt price', modelPrompt, setModelPrompt)}
      {input('Model max completion price', modelCompletion, setModelCompletion)}
      <button type="submit">Save limits</button>
      {error !== null && <ErrorMessage error={error} />}
    </form>
  );
}
