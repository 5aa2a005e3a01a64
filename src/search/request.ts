/**
 * A search's query string as a typed request, or a 400 that names the parameter and says what to give. The
 * words of `q` become an FTS5 expression of quoted tokens (letters and digits only, all of them required):
 * whatever a word holds (quotes, `*`, `-`, `OR`, `NEAR`), it is searched as plain text, never as FTS5 syntax.
 */
import { isElement, queryFormula } from './formula.js';

export const PARAMETERS = ['q', 'type', 'elements', 'nelements', 'source', 'state', 'page', 'per_page'];
export const MAX_Q = 1_000;
export const PER_PAGE_DEFAULT = 20;
export const PER_PAGE_MAX = 100;
/** The deepest result a search pages to: results past it are found by narrowing the search. */
export const MAX_WINDOW = 10_000;

/** Short names of `type`, as node type prefixes. */
export const TYPE_NAMES: Record<string, string> = {
  structure: 'data.core.structure.',
  cif: 'data.core.cif.',
  bands: 'data.core.array.bands.',
  calcjob: 'process.calculation.calcjob.',
  workchain: 'process.workflow.workchain.',
  workflow: 'process.workflow.',
  code: 'data.core.code.',
  dict: 'data.core.dict.',
};

export const STATES = ['finished', 'failed', 'excepted', 'killed'] as const;
export type ProcessStateName = (typeof STATES)[number];

export interface SearchRequest {
  /** The FTS5 expression of q's words, every word quoted; undefined without words. */
  match?: string;
  /** q when it is a UUID or the start of one (lower case). */
  uuidPrefix?: string;
  /** q was given but holds no word (only punctuation): nothing matches it. */
  empty: boolean;
  typePrefix?: string;
  elements: string[];
  nelements?: number;
  sources?: string[];
  state?: ProcessStateName;
  page: number;
  perPage: number;
}

/** A bad parameter: answered 400 with this message. */
export class SearchInputError extends Error {
  readonly status = 400;
  override name = 'SearchInputError';
}

const shown = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);

function wholeNumber(key: string, value: string, min: number, max: number): number {
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new SearchInputError(
      `${key}=${shown(value)} is not valid: give a whole number from ${min} to ${max}`,
    );
  }
  return Number(value);
}

/** Parses the raw query string; `served` says whether a source name is served. */
export function parseSearch(raw: string, served: (name: string) => boolean): SearchRequest {
  const params = new URLSearchParams(raw);
  const seen = new Set<string>();
  for (const key of params.keys()) {
    if (!PARAMETERS.includes(key)) {
      throw new SearchInputError(`unknown parameter ${shown(key)}; /search/ takes ${PARAMETERS.join(', ')}`);
    }
    if (key !== 'source' && seen.has(key)) {
      throw new SearchInputError(`the parameter "${key}" is given more than once; give it once`);
    }
    seen.add(key);
  }
  const request: SearchRequest = {
    empty: false,
    elements: [],
    page: 1,
    perPage: PER_PAGE_DEFAULT,
  };
  const q = params.get('q');
  if (q !== null) readQ(q, request);
  const type = params.get('type');
  if (type !== null) request.typePrefix = typePrefix(type);
  const elements = params.get('elements');
  if (elements !== null) request.elements = elementList(elements);
  const nelements = params.get('nelements');
  if (nelements !== null) request.nelements = wholeNumber('nelements', nelements, 1, 118);
  const sources = params.getAll('source');
  if (sources.length > 0) {
    for (const name of sources) {
      if (!served(name)) {
        throw new SearchInputError(
          `source=${shown(name)} is not a source this server serves; GET /sources/ lists them`,
        );
      }
    }
    request.sources = [...new Set(sources)];
  }
  const state = params.get('state');
  if (state !== null) {
    if (!(STATES as readonly string[]).includes(state)) {
      throw new SearchInputError(`state=${shown(state)} is not valid: give one of ${STATES.join(', ')}`);
    }
    request.state = state as ProcessStateName;
  }
  const perPage = params.get('per_page');
  if (perPage !== null) request.perPage = wholeNumber('per_page', perPage, 1, PER_PAGE_MAX);
  const page = params.get('page');
  if (page !== null) {
    request.page = wholeNumber('page', page, 1, Math.floor(MAX_WINDOW / request.perPage));
  }
  return request;
}

function readQ(q: string, request: SearchRequest) {
  if (q.length > MAX_Q) {
    throw new SearchInputError(
      `q is ${q.length} characters long; give at most ${MAX_Q} (a few words, a UUID or a formula)`,
    );
  }
  const text = q.trim();
  if (text === '') return;
  const hex = text.replaceAll('-', '');
  if (/^[0-9a-f][0-9a-f-]*$/i.test(text) && hex.length >= 4 && text.length <= 36) {
    request.uuidPrefix = text.toLowerCase();
  }
  const terms: string[] = [];
  for (const word of text.split(/\s+/)) {
    // Cut where FTS5's tokenizer cuts (at what is not a letter or a digit): every quoted string is one token,
    // never a phrase, so that a word's parts match wherever they are (`Si-O` is `Si` and `O`).
    const tokens = word.split(/[^\p{L}\p{N}]+/u).filter((t) => t !== '');
    if (tokens.length === 0) continue;
    const all = tokens.map((t) => `"${t}"`).join(' AND ');
    const formula = queryFormula(word);
    terms.push(
      formula === undefined || formula === word
        ? all
        : `(${tokens.length > 1 ? `(${all})` : all} OR "${formula}")`,
    );
  }
  if (terms.length > 0) request.match = terms.join(' AND ');
  else if (request.uuidPrefix === undefined) request.empty = true;
}

function typePrefix(type: string): string {
  const named = TYPE_NAMES[type];
  if (named !== undefined) return named;
  if (/^(data|process)\.[A-Za-z0-9_.]*$/.test(type)) return type;
  throw new SearchInputError(
    `type=${shown(type)} is not valid: give a node type prefix such as "data.core.structure." or one of ${Object.keys(TYPE_NAMES).join(', ')}`,
  );
}

function elementList(text: string): string[] {
  const symbols = text.split(',').map((s) => s.trim());
  for (const symbol of symbols) {
    if (!isElement(symbol)) {
      throw new SearchInputError(
        `elements=${shown(text)}: ${shown(symbol)} is not a chemical element; give symbols such as Si,O`,
      );
    }
  }
  return [...new Set(symbols)];
}
