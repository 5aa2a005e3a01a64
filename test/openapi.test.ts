/**
 * The OpenAPI document (`/api/v4/openapi.json`) and its page (`/docs`): the document is valid OpenAPI 3.1,
 * names exactly the endpoints of the root listing and the reserved keys of the query-string language, its
 * examples fit its schemas, every answer the reference server recorded (test/fixtures/conformance, and
 * ../shared/conformance where present) fits the schema of its endpoint and status, and so does every answer Quarry gives to the same requests. Over real
 * HTTP: the document, the page and its assets answer, all from this server, and the root listing is unchanged.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEndpoints } from '../src/http/endpoints.js';
import { setFailureSink } from '../src/http/failures.js';
import { buildDocument } from '../src/ops/openapi/document.js';
import { RESERVED_KEYS } from '../src/querystring/parse.js';
import { listeningOn, smallArchive } from './helpers.js';
import { ARCHIVES, loadArchiveCase, type Golden } from './conformance/replay.js';
import { appOn } from './helpers.js';
import { OpenApiChecker, type Answer } from './support/openapi-check.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const options = { prefix: '/api/v4', posting: true, limitDefault: 400, perpageDefault: 20, version: '0.0.0' };
const document = buildDocument(options) as Json;

/** Every set of recorded answers here: rich's two always, aiida-core's archives' where ../shared has them. */
const goldenFiles = [
  'rich.jsonl',
  'rich-psql.jsonl',
  ...ARCHIVES.filter((name) => name !== 'rich' && loadArchiveCase(name) !== undefined).map(
    (n) => `${n}.jsonl`,
  ),
];

function goldenAnswers(file: string): { id: string; answer: Answer }[] {
  const name = file.replace(/\.jsonl$/, '');
  const base = name.replace(/-psql$/, '');
  const loaded = loadArchiveCase(base, name.endsWith('-psql') ? 'psql' : 'archive');
  return (loaded?.golden ?? []).map((g: Golden) => ({
    id: g.request.id,
    answer: {
      method: g.request.method,
      path: g.request.path,
      status: g.status,
      contentType: g.headers['content-type'],
      body: g.body,
      headers: g.headers,
      recordedHeaders: Object.keys(g.headers),
    },
  }));
}

/** The problems of a set of answers, `id: problem` each. */
function problems(checker: OpenApiChecker, answers: { id: string; answer: Answer }[]): string[] {
  return answers.flatMap(({ id, answer }) => {
    const problem = checker.problem(answer);
    return problem === undefined
      ? []
      : [`${id} (${answer.method} ${answer.path} -> ${answer.status}): ${problem}`];
  });
}

describe('the document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('has an operation for every method of every path of the root listing, and no other path', () => {
    const listed = listEndpoints('/api/v4', true).map((line) => {
      const [, methods, path] = line.split(/ +/) as [string, string, string];
      return {
        methods: methods
          .split(',')
          .map((m) => m.toLowerCase())
          .sort(),
        path,
      };
    });
    const documented = Object.entries(document.paths as Record<string, Json>).map(([path, item]) => ({
      methods: Object.keys(item)
        .filter((k) => k !== 'parameters')
        .sort(),
      path: `/api/v4${path.replace('{id}', '<id>').replace('{page}', '<int:page>')}`,
    }));
    expect(documented.sort((a, b) => a.path.localeCompare(b.path))).toEqual(
      listed.sort((a, b) => a.path.localeCompare(b.path)),
    );
    // Without POST, /querybuilder/ leaves the listing and the document alike.
    const without = buildDocument({ ...options, posting: false }) as Json;
    expect(Object.keys(without.paths)).toHaveLength(listEndpoints('/api/v4', false).length);
  });

  it('names every reserved key of the query-string language as a parameter', () => {
    const names = Object.values(document.components.parameters as Record<string, Json>)
      .filter((p) => p.in === 'query' && p.name !== 'filters' && p.name !== 'user')
      .map((p) => p.name as string);
    expect(new Set(names)).toEqual(new Set(RESERVED_KEYS));
    for (const key of RESERVED_KEYS) expect(document.info.description).toContain(`\`${key}\``);
  });

  it('takes its servers entry from the prefix, or from the public URL', () => {
    expect(document.servers).toEqual([{ url: '/api/v4', description: 'This server' }]);
    const behind = buildDocument({
      ...options,
      prefix: '/v4',
      publicBase: 'https://example.org/quarry',
    }) as Json;
    expect(behind.servers[0].url).toBe('https://example.org/quarry/v4');
  });

  it('has examples that fit the schemas they illustrate', () => {
    const checker = new OpenApiChecker(document);
    const toResource = (schema: unknown) =>
      JSON.parse(
        JSON.stringify(schema).replaceAll(
          '"#/components/schemas/',
          '"https://quarry.invalid/openapi#/$defs/',
        ),
      );
    let seen = 0;
    const check = (schema: unknown, example: unknown, where: string) => {
      const validate = checker.validatorFor(toResource(schema));
      seen += 1;
      expect(validate(example), `${where}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const walk = (node: unknown, where: string) => {
      if (typeof node !== 'object' || node === null) return;
      const object = node as Json;
      // A schema's own examples (JSON Schema `examples`), and a media type's `example` of its schema.
      if (Array.isArray(object.examples) && (object.type !== undefined || object.$ref !== undefined)) {
        const { examples, ...schema } = object;
        for (const example of examples) check(schema, example, where);
      }
      if (object.schema !== undefined && object.example !== undefined && object.in === undefined)
        check(object.schema, object.example, where);
      for (const [key, value] of Object.entries(object)) walk(value, `${where}/${key}`);
    };
    walk(document.components, '#/components');
    walk(document.paths, '#/paths');
    expect(seen).toBeGreaterThanOrEqual(25);
  });
});

/** One checker for the reference's answers and Quarry's, which notes the schemas they were checked against. */
const checker = new OpenApiChecker(document);

describe('every recorded answer of the reference', () => {
  it.each(goldenFiles)('fits the document: %s', (file) => {
    const answers = goldenAnswers(file);
    expect(answers.length).toBeGreaterThan(100);
    expect(problems(checker, answers)).toEqual([]);
  });

  it('fails the check when a schema is wrong (a key of User left out)', () => {
    const broken = structuredClone(document);
    delete broken.components.schemas.User.properties.institution;
    broken.components.schemas.User.required = ['id', 'first_name', 'last_name'];
    const found = problems(new OpenApiChecker(broken), goldenAnswers('rich.jsonl'));
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toContain('institution');
  });

  it('fails the check when a status is not documented', () => {
    const broken = structuredClone(document);
    delete broken.paths['/nodes/{id}/download/'].get.responses['501'];
    const found = problems(new OpenApiChecker(broken), goldenAnswers('rich.jsonl'));
    expect(found.some((p) => p.includes('does not list status 501'))).toBe(true);
  });
});

const archives = ARCHIVES.map((name) => loadArchiveCase(name)).filter((c) => c !== undefined);

describe('every answer Quarry gives to the recorded requests', () => {
  it.each(archives.map((c) => [c.archive.split('/').pop(), c] as const))(
    'fits the document: %s',
    async (_name, loaded) => {
      const served = await appOn(loaded.archive);
      // 501 answers (exports Quarry does not write) are logged as failures; not here.
      const restore = setFailureSink(() => undefined);
      try {
        const answers: { id: string; answer: Answer }[] = [];
        for (const request of loaded.requests) {
          const res = await served.app.inject({
            method: request.method as 'GET',
            url: request.path,
            ...(request.body !== undefined
              ? { payload: JSON.stringify(request.body), headers: { 'content-type': 'application/json' } }
              : {}),
          });
          const type = res.headers['content-type'] as string | undefined;
          const json = type?.startsWith('application/json') && res.body !== '' ? JSON.parse(res.body) : null;
          answers.push({
            id: request.id,
            answer: {
              method: request.method,
              path: request.path,
              status: res.statusCode,
              contentType: type,
              body: json,
              headers: res.headers as Record<string, string>,
            },
          });
        }
        expect(problems(checker, answers)).toEqual([]);
        // A 500 is never Quarry's answer to these requests.
        expect(answers.filter((a) => a.answer.status >= 500 && a.answer.status !== 501)).toEqual([]);
      } finally {
        restore();
        await served.close();
      }
    },
    120_000,
  );
});

describe.skipIf(archives.length === 0 || goldenFiles.length === 0)('the answers checked', () => {
  it('include a 200 answer of every GET and POST operation that answers JSON', () => {
    const expected = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
      ['get', 'post']
        .filter((m) => item[m]?.responses['200']?.content?.['application/json'] !== undefined)
        .map((m) => `${m.toUpperCase()} ${path} 200`),
    );
    expect(expected.length).toBeGreaterThan(40);
    expect(expected.filter((key) => !checker.checked.has(key))).toEqual([]);
  });
});

describe('over HTTP', () => {
  let server: Awaited<ReturnType<typeof listeningOn>>;
  let base: string;
  beforeAll(async () => {
    server = await listeningOn(await smallArchive(200));
    base = `http://127.0.0.1:${server.port}`;
  }, 60_000);
  afterAll(async () => server?.close());

  it('serves the document at <prefix>/openapi.json, once built, with CORS', async () => {
    const res = await fetch(`${base}/api/v4/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const served = (await res.json()) as Json;
    expect(served.paths).toEqual(JSON.parse(JSON.stringify(document.paths)));
    expect(served.servers).toEqual([{ url: '/api/v4', description: 'This server' }]);
    // The same text every time: computed once.
    const again = await (await fetch(`${base}/api/v4/openapi.json`)).text();
    expect(again).toBe(JSON.stringify(served));
  });

  it('serves /docs, rendering every operation, with only its own script', async () => {
    const res = await fetch(`${base}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    // The way back to the explorer and the document are links; the one other reference is the page's script.
    expect(refs.sort()).toEqual(['/', '/api/v4/openapi.json', '/docs/try.js']);
    expect(html).not.toMatch(/<script>/);
    const served = (await (await fetch(`${base}/api/v4/openapi.json`)).json()) as Json;
    for (const [path, item] of Object.entries(served.paths as Record<string, Json>))
      for (const method of Object.keys(item).filter((key) => key !== 'parameters'))
        expect(html, `${method} ${path}`).toContain(
          `data-method="${method.toUpperCase()}" data-path="${path.replace(/&/g, '&#38;')}"`,
        );
    const script = await fetch(`${base}/docs/try.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).not.toMatch(/https?:\/\//);
    expect((await fetch(`${base}/docs/`)).status).toBe(200);
  });

  it('serves no other file under /docs, and unknown URLs answer as before', async () => {
    const root = (await (await fetch(`${base}/api/v4/`)).json()) as Json;
    for (const path of [
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/init.js',
      '/docs/../package.json',
      '/docs/nothing',
      '/api/v4/openapi',
    ]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toEqual({
        message: 'The requested URL is not found on the server.',
        available_endpoints: root.data.available_endpoints,
      });
    }
  });

  it('writes the public URL into the page, the document and its servers entry', async () => {
    const behind = await appOn(await smallArchive(200), { publicUrl: 'https://example.org/quarry' });
    try {
      const page = await behind.app.inject({ url: '/docs' });
      expect(page.body).toContain('src="/quarry/docs/try.js"');
      expect(page.body).toContain('href="/quarry/api/v4/openapi.json"');
      expect(page.body).toContain('data-server="https://example.org/quarry/api/v4"');
      const served = (await behind.app.inject({ url: '/api/v4/openapi.json' })).json() as Json;
      expect(served.servers[0].url).toBe('https://example.org/quarry/api/v4');
      // HEAD as every GET route.
      expect((await behind.app.inject({ method: 'HEAD', url: '/docs' })).statusCode).toBe(200);
    } finally {
      await behind.close();
    }
  });

  it('leaves the root listing as it is', async () => {
    const root = (await (await fetch(`${base}/api/v4/`)).json()) as Json;
    expect(root.data.available_endpoints).toEqual(listEndpoints('/api/v4', true));
    // As the reference lists them (the order of methods inside an entry aside).
    const recorded = goldenFiles.includes('rich.jsonl')
      ? goldenAnswers('rich.jsonl')[0]?.answer.body
      : undefined;
    if (recorded !== undefined) {
      const methodsSorted = (lines: string[]) =>
        lines.map((l) => l.replace(/[A-Z,]+(?= )/, (m) => m.split(',').sort().join(','))).sort();
      expect(methodsSorted(root.data.available_endpoints)).toEqual(
        methodsSorted((recorded as Json).data.available_endpoints),
      );
    }
    expect(JSON.stringify(root)).not.toMatch(/openapi|docs/);
    const listing = (await (await fetch(`${base}/api/v4/server/endpoints/`)).json()) as Json;
    expect(listing.data.available_endpoints).toEqual(root.data.available_endpoints);
  });
});
