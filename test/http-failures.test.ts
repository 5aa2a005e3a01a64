/** A 5xx says "see the server log": the log has it, once, with its cause, with or without `--log`. */
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { flushWarnings, setFailureSink } from '../src/http/failures.js';
import { HttpError } from '../src/rest/errors.js';
import { DatabaseUnavailableError, ServerBusyError } from '../src/storage/types.js';
import type { StorageBackend } from '../src/storage/types.js';

/** A storage whose every query fails as a bug of ours would (not an error meant for the client). */
function brokenBackend(error: () => Error): StorageBackend {
  const failing = new Proxy({}, { get: () => () => Promise.reject(error()) });
  return {
    name: 'broken',
    kind: 'archive',
    aiidaVersion: '2.3.1',
    db: failing as StorageBackend['db'],
    repository: failing as StorageBackend['repository'],
    close: async () => undefined,
  };
}

let restore: (() => void) | undefined;
afterEach(() => restore?.());

/** The failure lines written from now on, parsed. */
interface FailureLine {
  reqId: unknown;
  err: { stack: string };
}

function captureFailures(): () => FailureLine[] {
  const lines: string[] = [];
  restore = setFailureSink((line) => lines.push(line));
  return () => lines.map((line) => JSON.parse(line));
}

describe('5xx answers are logged', () => {
  it('writes one JSON line with the request and the stack of the cause, and tells the client so', async () => {
    const logged = captureFailures();
    const cause = new Error('disk on fire');
    const app = await buildApp({
      backends: [brokenBackend(() => new Error('statement failed', { cause }))],
    });
    const answer = await app.inject({ method: 'GET', url: '/api/v4/nodes/?limit=2' });
    expect(answer.statusCode).toBe(500);
    expect(answer.json().message).toMatch(/see the server log/);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.body).not.toContain('statement failed');
    expect(logged()).toHaveLength(1);
    const [line] = logged();
    expect(line).toMatchObject({
      level: 'error',
      msg: 'request failed',
      method: 'GET',
      url: '/api/v4/nodes/?limit=2',
      status: 500,
      err: { type: 'Error', message: 'statement failed', cause: { message: 'disk on fire' } },
    });
    expect(line!.err.stack).toMatch(/^Error: statement failed\n\s+at /);
    expect(typeof line!.reqId).toBe('string');
    await app.close();
  });

  it('logs the 502 and 503 a client is told about too, and no 4xx', async () => {
    const logged = captureFailures();
    const app = await buildApp({
      backends: [brokenBackend(() => new HttpError(503, 'the database is down'))],
    });
    const answer = await app.inject({ method: 'GET', url: '/api/v4/users/' });
    expect(answer.statusCode).toBe(503);
    expect(answer.json().message).toBe('the database is down');
    await app.inject({ method: 'GET', url: '/api/v4/nowhere/' });
    await app.inject({ method: 'GET', url: '/api/v4/nodes/?orderby=nope' });
    expect(logged()).toHaveLength(1);
    expect(logged()[0]).toMatchObject({
      status: 503,
      err: { type: 'HttpError', message: 'the database is down' },
    });
    await app.close();
  });

  it('writes the line once when requests are logged as well (--log)', async () => {
    const logged = captureFailures();
    const app = await buildApp({ backends: [brokenBackend(() => new Error('boom'))], logger: false });
    const withLog = await buildApp({ backends: [brokenBackend(() => new Error('boom'))], logger: true });
    // Fastify's request log goes to stdout; keep the test's output clean.
    withLog.log.level = 'silent';
    for (const a of [app, withLog]) {
      expect((await a.inject({ method: 'GET', url: '/api/v4/computers/' })).statusCode).toBe(500);
    }
    expect(logged()).toHaveLength(2);
    await Promise.all([app.close(), withLog.close()]);
  });

  it('summarises a flood of refusals and outages: warnings without stacks, counted per cause; a bug at once', async () => {
    const raw: string[] = [];
    restore = setFailureSink((line) => raw.push(line));
    let n = 0;
    const app = await buildApp({
      backends: [
        brokenBackend(() =>
          ++n % 2 === 0
            ? new ServerBusyError(`this server is busy: ${n} queries wait for it`, 3)
            : new DatabaseUnavailableError(`The database at localhost:${5000 + n}/db is not reachable now`),
        ),
      ],
    });
    const bug = await buildApp({ backends: [brokenBackend(() => new Error('a bug of ours'))] });
    for (let i = 0; i < 500; i++) {
      const answer = await app.inject({ method: 'GET', url: `/api/v4/users/?id=${i}` });
      expect(answer.statusCode).toBe(503);
    }
    expect((await bug.inject({ method: 'GET', url: '/api/v4/users/' })).statusCode).toBe(500);
    // The first of each cause at once, and the bug at once: three lines before any summary.
    const first = raw.map((line) => JSON.parse(line));
    // Which cause comes first depends on whether anything asked the storage before the requests.
    expect(first.map((l) => [l.level, l.err.type]).sort()).toEqual([
      ['error', 'Error'],
      ['warn', 'DatabaseUnavailableError'],
      ['warn', 'ServerBusyError'],
    ]);
    for (const warning of first.filter((l) => l.level === 'warn')) expect(warning.err.stack).toBeUndefined();
    expect(first.find((l) => l.level === 'error').err.stack).toMatch(/a bug of ours/);
    flushWarnings();
    const all = raw.map((line) => JSON.parse(line));
    expect(
      all
        .slice(3)
        .map((l) => [l.err.type, l.count])
        .sort(),
    ).toEqual([
      ['DatabaseUnavailableError', 249],
      ['ServerBusyError', 249],
    ]);
    expect(raw.join('').length).toBeLessThan(3_000);
    await Promise.all([app.close(), bug.close()]);
  });
});
