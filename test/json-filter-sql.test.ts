/**
 * PostgreSQL reads a node's JSON document once per test of it: an equality with a string or a number is not
 * also guarded by a test of the value's type there (jsonb equality compares types), while SQLite keeps the
 * guard it needs, and the comparisons that jsonb orders across types keep theirs. The answers themselves are
 * checked on PostgreSQL by the conformance suite (the rich profile as core.psql_dos).
 */
import { describe, expect, it } from 'vitest';
import { compileQuery, parseQueryDict } from '../src/query/index.js';

const sqlOf = (filters: Record<string, unknown>, dialect: 'sqlite' | 'postgres') =>
  compileQuery(
    parseQueryDict({
      path: [{ entity_type: 'data.core.dict.Dict.', orm_base: 'node', tag: 'd' }],
      filters: { d: filters },
      project: { d: ['id'] },
    }),
    dialect,
  ).select.sql;

const typeTests = (sql: string) => sql.match(/jsonb_typeof|json_type/g)?.length ?? 0;

describe('JSON filters as SQL', () => {
  it('leave the type test out of a PostgreSQL equality with a string, a number or a date', () => {
    for (const value of ['eV', 240, '2020-01-01T00:00:00+00:00']) {
      const filters = { 'attributes.energy_units': { '==': value } };
      expect(typeTests(sqlOf(filters, 'postgres'))).toBe(0);
      expect(sqlOf(filters, 'postgres')).toMatch(/#> \$\d+::text\[\]\) = \$\d+::jsonb/);
      expect(typeTests(sqlOf(filters, 'sqlite'))).toBe(1);
    }
  });

  it('keep it where jsonb would match values of other types', () => {
    // jsonb orders strings below numbers: `< 5` alone would match every string.
    expect(typeTests(sqlOf({ 'attributes.x': { '<': 5 } }, 'postgres'))).toBe(1);
    expect(typeTests(sqlOf({ 'attributes.x': { like: 'e%' } }, 'postgres'))).toBe(1);
    expect(typeTests(sqlOf({ 'attributes.x': { of_type: 'string' } }, 'postgres'))).toBe(1);
    expect(typeTests(sqlOf({ 'attributes.x': { '==': true } }, 'postgres'))).toBe(0);
    // Two paths: only the one compared for equality loses its test.
    const both = { 'attributes.x': { '==': 'a' }, 'attributes.y': { '>': 1 } };
    expect(typeTests(sqlOf(both, 'postgres'))).toBe(1);
  });
});
