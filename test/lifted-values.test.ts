/**
 * Posted bodies that differ only in the pks their `id` filters compare share one plan, with the pks bound
 * (src/query/lifted-values.ts): the same rows as each body compiled on its own, one compilation for them all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  jsonPlanKey,
  liftedValues,
  Param,
  planCacheUse,
  planKey,
} from '../src/query/index.js';
import { postQueryBuilder } from '../src/rest/querybuilder.js';
import { openArchive } from '../src/storage/index.js';
import type { StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';

const node = (tag: string, entityType = '') => ({ entity_type: entityType, orm_base: 'node', tag });

describe('pks lifted out of posted dictionaries', () => {
  it('writes the whole numbers compared with a tag id as Params, and nothing else', () => {
    const lifted = liftedValues({
      path: [node('a'), node('b')],
      filters: { a: { id: { '>': 7 }, label: 'x' }, b: { id: 12 } },
    });
    expect(lifted?.values).toEqual({ id0: 7, id1: 12 });
    const filters = lifted?.dict.filters as Record<string, Record<string, unknown>>;
    expect(filters.a).toEqual({ id: { '>': expect.any(Param) }, label: 'x' });
    expect(Object.keys(filters.a!)).toEqual(['id', 'label']);
    expect(filters.b!.id).toEqual({ '==': expect.any(Param) });
    // Left as they are: fractions, numbers past 2^53, texts, lists, other operators, several at once,
    // other columns, and frozen dictionaries (the REST layer binds its own pks).
    for (const id of [
      1.5,
      2 ** 53,
      '7',
      [1],
      { in: [1, 2] },
      { '!==': 3 },
      { '>': 1, '<': 9 },
      { like: '1%' },
    ])
      expect(liftedValues({ path: [node('a')], filters: { a: { id } } }), JSON.stringify(id)).toBeUndefined();
    expect(liftedValues({ path: [node('a')], filters: { a: { user_id: 3 } } })).toBeUndefined();
    expect(liftedValues(Object.freeze({ path: [node('a')], filters: { a: { id: 3 } } }))).toBeUndefined();
  });

  let backend: StorageBackend;
  beforeAll(async () => {
    backend = await openArchive(await smallArchive(300, 3), { cacheDir: tempDir() });
  }, 60_000);
  afterAll(async () => backend?.close());

  it('names the plan of a posted body by its JSON text, the same for bodies lifted alike only', () => {
    const key = (filters: unknown) => {
      const dict = { path: [node('a')], filters };
      return jsonPlanKey(liftedValues(dict)?.shape ?? dict, 'sqlite', DEFAULT_LIMITS);
    };
    // Lifted alike: any pk, 0 included, and a pk alone as `==`.
    expect(key({ a: { id: { '>': 7 } } })).toBe(key({ a: { id: { '>': 0 } } }));
    expect(key({ a: { id: 12 } })).toBe(key({ a: { id: { '==': 3 } } }));
    // Not lifted, or lifted otherwise: another plan.
    for (const other of [{ '>': '0' }, { '>': 1.5 }, { '<': 7 }, { '>': 7, '<': 9 }, 0.5])
      expect(key({ a: { id: other } }), JSON.stringify(other)).not.toBe(key({ a: { id: { '>': 7 } } }));
    expect(key({ a: { id: { '>': 0 }, label: 'x' } })).not.toBe(key({ a: { id: { '>': 0 } } }));
    // Never the key planKey writes for a dictionary that is not JSON (a Date, a Param).
    const dated = { path: [node('a')], filters: { a: { ctime: { '>': new Date(0) } } } };
    expect(planKey(dated, 'sqlite', DEFAULT_LIMITS)).not.toBe(jsonPlanKey(dated, 'sqlite', DEFAULT_LIMITS));
  });

  it.each([false, true])(
    'answers each body with its own rows, from one plan (known by its JSON text: %s)',
    async (json) => {
      const body = (op: string, id: number) => ({
        path: [node('n', 'data.core.int.Int.')],
        filters: { n: { id: { [op]: id } } },
        project: { n: ['id'] },
        order_by: [{ n: [{ id: { order: 'asc' } }] }],
        limit: 50,
      });
      type Records = Record<string, { id: number }[]>;
      const ids = async (b: object) => {
        const { data } = await postQueryBuilder(backend, b, undefined, Infinity, undefined, json);
        const records = (Buffer.isBuffer(data) ? JSON.parse(String(data)) : data) as Records;
        return (records.n ?? []).map((r) => r.id);
      };
      const every = await ids({ ...body('>', -1), limit: 1000 });
      expect(every.length).toBeGreaterThan(10);
      const misses = planCacheUse().misses;
      for (const pivot of every.slice(0, 6)) {
        expect(await ids(body('>', pivot))).toEqual(every.filter((id) => id > pivot).slice(0, 50));
        expect(await ids(body('<=', pivot))).toEqual(every.filter((id) => id <= pivot));
        expect(await ids(body('==', pivot))).toEqual([pivot]);
        const alone = { ...body('==', pivot), filters: { n: { id: pivot } } };
        expect(await ids(alone)).toEqual([pivot]);
      }
      // One plan per operator (the value alone is ==), whatever the pk.
      expect(planCacheUse().misses - misses).toBe(3);
      // A pk no whole-number column holds is still answered (no row), compiled on its own.
      expect(await ids(body('==', 2 ** 60))).toEqual([]);
    },
  );
});
