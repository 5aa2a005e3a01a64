import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileQuery,
  DEFAULT_LIMITS,
  Param,
  parseQueryDict,
  planKey,
  prepareQuery,
  QueryValidationError,
  runQuery,
} from '../src/query/index.js';
import { openArchive } from '../src/storage/index.js';
import { deepFreeze } from '../src/util/deep-freeze.js';
import type { StorageBackend } from '../src/storage/types.js';
import { smallArchive, tempDir } from './helpers.js';

const node = (tag: string, entityType = '') => ({ entity_type: entityType, orm_base: 'node', tag });
const UUID = new Param('uuid');

describe('kept plans and bound parameters', () => {
  let b: StorageBackend;
  beforeAll(async () => {
    b = await openArchive(await smallArchive(300, 5), { cacheDir: tempDir() });
  });
  afterAll(async () => b.close());

  const byUuid = (extra: Record<string, unknown> = {}) => ({
    path: [node('n')],
    filters: { n: { uuid: { '==': UUID } } },
    project: { n: ['id', 'uuid', 'label'] },
    ...extra,
  });

  it('answers each bound value with its own rows from one compiled plan', async () => {
    const some = await runQuery(
      b.db,
      prepareQuery({ path: [node('n')], project: { n: ['id', 'uuid'] }, limit: 25 }, 'sqlite'),
    );
    const plan = prepareQuery(byUuid(), 'sqlite');
    expect(prepareQuery(byUuid(), 'sqlite')).toBe(plan);
    for (const row of some) {
      const uuid = row.n?.uuid as string;
      const literal = await runQuery(
        b.db,
        prepareQuery({ ...byUuid(), filters: { n: { uuid: { '==': uuid } } } }, 'sqlite'),
      );
      const found = await runQuery(b.db, plan, { uuid });
      expect(found).toEqual(literal);
      expect(found.map((r) => r.n?.id)).toEqual([row.n?.id]);
    }
  });

  it('refuses to run a plan whose parameter has no value', async () => {
    await expect(runQuery(b.db, prepareQuery(byUuid(), 'sqlite'), {})).rejects.toThrow(/uuid/);
  });

  it('takes parameters only where a plain column is compared with one value', () => {
    const refused = [
      { uuid: { like: UUID } },
      { uuid: { in: UUID } },
      { 'attributes.x': { '==': UUID } },
      { attributes: { '==': UUID } },
    ];
    for (const filter of refused) {
      expect(() => compileQuery(parseQueryDict({ ...byUuid(), filters: { n: filter } }), 'sqlite')).toThrow(
        QueryValidationError,
      );
    }
  });

  it('tells apart dictionaries that JSON would merge', () => {
    const key = (filter: unknown, hints = {}) =>
      planKey({ ...byUuid(), filters: { n: { ctime: filter } } }, 'sqlite', DEFAULT_LIMITS, hints);
    const when = new Date('2020-01-02T03:04:05Z');
    expect(key({ '<': when })).not.toBe(key({ '<': when.toISOString() }));
    expect(key({ '<': new Param('t') })).not.toBe(key({ '<': { '\u0000param': 't' } }));
    expect(key({ '<': Infinity })).not.toBe(key({ '<': null }));
    expect(key({ '<': 1 }, { orderedScan: true })).not.toBe(key({ '<': 1 }));
    expect(planKey(byUuid(), 'sqlite', DEFAULT_LIMITS)).not.toBe(
      planKey(byUuid(), 'postgres', DEFAULT_LIMITS),
    );
    expect(key({ '<': 1 })).toBe(key({ '<': 1 }));
  });

  it('knows shared frozen parts by identity, and never a part that can still change', () => {
    const key = (dict: unknown) => planKey(dict, 'sqlite', DEFAULT_LIMITS);
    const shared = deepFreeze({ n: { label: { like: 'a%' }, id: { '>': 3 } } });
    expect(key({ ...byUuid(), filters: shared })).toBe(
      key({ ...byUuid(), filters: { n: { label: { like: 'a%' }, id: { '>': 3 } } } }),
    );
    expect(key({ ...byUuid(), filters: shared })).toBe(key({ ...byUuid(), filters: shared }));
    // Frozen on the outside only: the inner filter changes, and so must the key.
    const inner: Record<string, unknown> = { label: { like: 'a%' } };
    const shallow = Object.freeze({ n: inner });
    const before = key({ ...byUuid(), filters: shallow });
    inner.label = { like: 'b%' };
    expect(key({ ...byUuid(), filters: shallow })).not.toBe(before);
    const when = new Date(0);
    const withDate = deepFreeze({ n: { ctime: { '>': when } } });
    const dateBefore = key({ ...byUuid(), filters: withDate });
    when.setTime(1000);
    expect(key({ ...byUuid(), filters: withDate })).not.toBe(dateBefore);
  });

  it('gives a frozen dictionary the key of its settings, the same as an equal dictionary not frozen', () => {
    const frozen = deepFreeze(byUuid({ limit: 2 }));
    const hints = { orderedScan: true };
    for (const [dialect, hint] of [
      ['sqlite', undefined],
      ['postgres', undefined],
      ['sqlite', hints],
    ] as const) {
      const key = planKey(frozen, dialect, DEFAULT_LIMITS, hint);
      expect(planKey(frozen, dialect, DEFAULT_LIMITS, hint)).toBe(key);
      expect(planKey(byUuid({ limit: 2 }), dialect, DEFAULT_LIMITS, hint)).toBe(key);
    }
    const keys = new Set(
      [undefined, hints].flatMap((hint) =>
        (['sqlite', 'postgres'] as const).map((dialect) => planKey(frozen, dialect, DEFAULT_LIMITS, hint)),
      ),
    );
    expect(keys.size).toBe(4);
    expect(planKey(frozen, 'sqlite', { ...DEFAULT_LIMITS, maxVertices: 3 })).not.toBe(
      planKey(frozen, 'sqlite', DEFAULT_LIMITS),
    );
  });

  it('writes SQLite windows as literals, so a prepared statement is not planned again for each window', () => {
    const { select } = compileQuery(parseQueryDict({ ...byUuid(), limit: 20, offset: 40 }), 'sqlite');
    expect(select.sql).toMatch(/LIMIT 20 OFFSET 40$/);
    expect(select.params).toEqual([UUID]);
  });
});
