/**
 * A short label search (`Si`) matches whole words: a substring of two or three letters is part of too many
 * others (`singlefile-3`). The v4 list filters cannot say "a word", so the querybuilder takes the newest labels
 * containing the text and the explorer keeps those where it stands alone (between anything but letters:
 * `Si diamond`, `CIF Si2`, `Si.cif`); the list is then filtered by their pks.
 */
import type { Api } from './api.js';

/** Texts up to this long are matched as words; longer ones as substrings, by the v4 list filter itself. */
export const WORD_SEARCH_MAX = 3;

/** How many labels containing the text are looked through. */
const CANDIDATES = 2000;

export function searchesWords(text: string): boolean {
  return text.trim().length <= WORD_SEARCH_MAX;
}

/** Does `label` hold `word` with no letter just before or after it (any case)? */
export function labelHasWord(label: string, word: string): boolean {
  const escaped = word.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}])${escaped}($|[^\\p{L}])`, 'iu').test(label);
}

/** The pks of the newest nodes (at most `limit`) whose label holds `word` as a word. */
export async function wordLabelPks(
  api: Api,
  word: string,
  limit: number,
  signal?: AbortSignal,
): Promise<number[]> {
  const text = word.trim();
  const answer = await api.query<{ n?: { id: number; label: string }[] }>(
    {
      path: [{ entity_type: '', orm_base: 'node', tag: 'n', subclassing: true }],
      filters: { n: { label: { ilike: `%${text.replace(/[%_\\]/g, '')}%` } } },
      project: { n: ['id', 'label'] },
      order_by: { n: { id: 'desc' } },
      limit: CANDIDATES,
    },
    { signal },
  );
  return (answer.data.n ?? [])
    .filter((row) => labelHasWord(row.label, text))
    .slice(0, limit)
    .map((row) => row.id);
}
