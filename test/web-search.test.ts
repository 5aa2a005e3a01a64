/**
 * The explorer's search as its address holds it (web/src/search-state.ts): what a shared `/search?...` link means,
 * what it asks the server's `GET /search/`, and the periodic table its element picker lays out.
 */
import { describe, expect, it } from 'vitest';
import {
  asksAnything,
  changed,
  currentSource,
  searchApiQuery,
  searchQuery,
  searchStateFrom,
} from '../web/src/search-state.js';
import { CELLS, ELEMENTS } from '../web/src/periodic.js';
import { parseRoute } from '../web/src/url.js';

const from = (query: string) => searchStateFrom(new URLSearchParams(query), new Set(ELEMENTS));

describe('a search in the address', () => {
  it('reads every parameter and writes it back the same, defaults left out', () => {
    const query = 'q=GaAs+bulk&type=structure&elements=As%2CGa&state=failed&source=a&source=b&page=3';
    const state = from(query);
    expect(state).toEqual({
      q: 'GaAs bulk',
      type: 'structure',
      elements: ['As', 'Ga'],
      state: 'failed',
      sources: ['a', 'b'],
      page: 3,
    });
    expect(searchQuery(state)).toBe(query);
    expect(from(searchQuery(state))).toEqual(state);
    expect(searchQuery(from(''))).toBe('');
    expect(parseRoute('/search')).toEqual({ name: 'search' });
    expect(parseRoute('/mc3d/search/', '/mc3d')).toEqual({ name: 'search' });
  });

  it('leaves out what the API would refuse instead of sending it', () => {
    expect(from('elements=Si,Xx,o,O,Si&type=nonsense&state=sleeping&page=0&source=../x')).toEqual({
      elements: ['O', 'Si'],
      sources: [],
      page: 1,
      q: undefined,
      type: undefined,
      state: undefined,
    });
    expect(from('type=data.core.structure.').type).toBe('data.core.structure.');
    expect(from(`q=${'a'.repeat(1500)}`).q).toHaveLength(1000);
    // page × per_page stays within the API's 10,000.
    expect(from('page=100000').page).toBe(500);
    expect(asksAnything(from('page=2'))).toBe(false);
    expect(asksAnything(from('elements=Si'))).toBe(true);
    // Without the table (the first page's code), anything shaped like a symbol.
    expect(searchStateFrom(new URLSearchParams('elements=Si,Xx,si')).elements).toEqual(['Si', 'Xx']);
  });

  it('asks the API the same search, 20 a page, and keeps profile and api in its links', () => {
    const state = from('q=Si O&elements=O&page=2');
    expect(searchApiQuery(state)).toBe('q=Si+O&elements=O&page=2&per_page=20');
    const kept = new URLSearchParams('profile=rich&api=http%3A%2F%2Fx%2Fapi%2Fv4&sort=ctime');
    expect(searchQuery(state, kept)).toBe(
      'profile=rich&api=http%3A%2F%2Fx%2Fapi%2Fv4&q=Si+O&elements=O&page=2',
    );
    // A facet changed goes back to the first page.
    expect(changed(state, { elements: ['O', 'Si'] })).toMatchObject({ page: 1, elements: ['O', 'Si'] });
  });

  it('names the source shown: the chosen profile, the one at its own path, or the only one', () => {
    const none = new URLSearchParams();
    expect(currentSource(new URLSearchParams('profile=b'), '', '', ['a', 'b'])).toBe('b');
    expect(currentSource(none, '/mc3d', '', [])).toBe('mc3d');
    expect(currentSource(none, '/portal/mc3d', '/portal', [])).toBe('mc3d');
    expect(currentSource(none, '', '', ['only'])).toBe('only');
    expect(currentSource(none, '', '', ['a', 'b'])).toBeUndefined();
  });
});

describe('the periodic table of the picker', () => {
  it('holds the 118 elements once each, in their groups and periods', () => {
    expect(ELEMENTS).toHaveLength(118);
    expect(new Set(ELEMENTS).size).toBe(118);
    const at = (symbol: string) => CELLS.find((c) => c.symbol === symbol);
    expect(at('H')).toEqual({ symbol: 'H', row: 1, column: 1 });
    expect(at('He')).toEqual({ symbol: 'He', row: 1, column: 18 });
    expect(at('Si')).toEqual({ symbol: 'Si', row: 3, column: 14 });
    expect(at('Fe')).toEqual({ symbol: 'Fe', row: 4, column: 8 });
    expect(at('Og')).toEqual({ symbol: 'Og', row: 7, column: 18 });
    expect(at('Lu')).toEqual({ symbol: 'Lu', row: 8, column: 17 });
    expect(at('Lr')).toEqual({ symbol: 'Lr', row: 9, column: 17 });
    // No two elements share a cell.
    expect(new Set(CELLS.map((c) => `${c.row}:${c.column}`)).size).toBe(118);
  });
});
