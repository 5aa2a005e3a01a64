/**
 * The benchmark's SQL floor served (src/bench/served-statements.ts) runs the statements Quarry ran for a posted
 * query and answers what they wrote: the same bytes as Quarry's answer, or the floor would time other work.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAccesses, sqliteFileOf } from '../src/bench/floors.js';
import { JOIN_QUERY } from '../src/bench/never-asked.js';
import { servedStatements, writeStatementsSpec } from '../src/bench/served-statements.js';
import { appOn, smallArchive, tempDir } from './helpers.js';

describe('the SQL floor served', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    served = await appOn(await smallArchive(400, 3));
  }, 60_000);
  afterAll(async () => served?.close());

  it('answers the bytes Quarry answers for the same posted query', async () => {
    const body = { ...JOIN_QUERY, filters: { c: { id: { '>': -3 } } } };
    const kind = { name: 'join', method: 'POST' as const, paths: ['/api/v4/querybuilder/'], body };
    const runs = (await recordAccesses(served.backend, [kind])).get('join')!.flatMap((a) => a.statements);
    expect(runs.length).toBeGreaterThan(0);
    const spec = join(tempDir(), 'join.json');
    writeStatementsSpec(spec, sqliteFileOf(served.backend)!, runs);
    const statements = servedStatements(spec);
    try {
      const answer = statements.answer().toString();
      const quarry = await served.app.inject({ method: 'POST', url: '/api/v4/querybuilder/', payload: body });
      expect(quarry.statusCode).toBe(200);
      expect((JSON.parse(answer) as { data: { c: unknown[] } }).data.c.length).toBeGreaterThan(0);
      expect(answer).toBe(quarry.body);
    } finally {
      statements.close();
    }
  });
});
