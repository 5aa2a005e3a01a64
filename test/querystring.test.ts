import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED, parserSource } from '../scripts/generate-parser.mjs';
import { parseQueryString, QueryStringError, unquote } from '../src/querystring/index.js';

const parse = (q: string) => parseQueryString(q);
const error = (q: string): QueryStringError => {
  try {
    parse(q);
  } catch (e) {
    expect(e).toBeInstanceOf(QueryStringError);
    return e as QueryStringError;
  }
  throw new Error(`"${q}" was accepted`);
};

describe('v4 query-string language', () => {
  it('reads the reserved keys', () => {
    expect(parse('limit=5&offset=10&orderby=-ctime,id&attributes=true&attributes_filter=a,b')).toMatchObject({
      limit: 5,
      offset: 10,
      orderby: ['-ctime', 'id'],
      attributes: true,
      attributesFilter: ['a', 'b'],
      download: true,
    });
    expect(parse('')).toEqual({ orderby: [], filters: {}, download: true });
    expect(parse('full_type="process.%25|%25"&download=false').fullType).toBe('process.%|%');
  });

  it('maps the ten operators onto QueryBuilder operators', () => {
    const f = parse(
      'a=1&b!=2&c=in=1,2&d=notin="x","y"&e>1&f<2&g>=3&h<=4&i=like="a%25"&j=ilike="B%25"',
    ).filters;
    expect(f).toEqual({
      a: { '==': 1 },
      b: { '!==': 2 },
      c: { in: [1, 2] },
      d: { '!in': ['x', 'y'] },
      e: { '>': 1 },
      f: { '<': 2 },
      g: { '>=': 3 },
      h: { '<=': 4 },
      i: { like: 'a%' },
      j: { ilike: 'B%' },
    });
  });

  it('types values: quoted strings with "" escapes, numbers, booleans, names', () => {
    expect(parse('label="say ""hi"""').filters.label).toEqual({ '==': 'say "hi"' });
    expect(parse('x=-1.5e2').filters.x).toEqual({ '==': -150 });
    expect(parse('x=true').filters.x).toEqual({ '==': true });
    expect(parse('x=abc').filters.x).toEqual({ '==': 'abc' });
  });

  it('turns datetime equality into the interval of its precision', () => {
    expect(parse('ctime=2019-03-04').filters.ctime).toEqual({
      and: [{ '>=': new Date('2019-03-04T00:00:00Z') }, { '<': new Date('2019-03-05T00:00:00Z') }],
    });
    expect(parse('ctime=2019-03-04T10:15').filters.ctime).toEqual({
      and: [{ '>=': new Date('2019-03-04T10:15:00Z') }, { '<': new Date('2019-03-04T10:16:00Z') }],
    });
    expect(parse('ctime>2022-07-29T02:12:00+02:00').filters.ctime).toEqual({
      '>': new Date('2022-07-29T00:12:00Z'),
    });
  });

  it('ANDs a repeated filter key and drops the jQuery cache buster', () => {
    expect(parse('id>5&id<9&_=12345').filters).toEqual({ id: { and: [{ '>': 5 }, { '<': 9 }] } });
  });

  it('refuses malformed strings with the column and what was expected (404, as the reference)', () => {
    const e = error('limit=5&&orderby=id');
    expect(e.status).toBe(404);
    expect(e.message).toMatch(/column 9/);
    expect(error('label=foo.bar').message).toMatch(/column 10/);
    expect(error('id=>5').message).toMatch(/column 4.*expected a value/);
    expect(error('attributes.value=5').message).toMatch(/column 11/);
    expect(error('ctime>2019-13-45T10:00').message).toMatch(/time value has wrong format/);
  });

  it('allows reserved keys once and only with "="', () => {
    expect(error('limit=5&limit=6').message).toMatch(/limit more than once/);
    expect(error('limit>5').message).toMatch(/only assignment operator/);
  });

  it("reads an unquoted profile as the source's name it is, dots and all", () => {
    expect(parse('profile=export_0.13_simple&limit=2')).toMatchObject({
      profile: 'export_0.13_simple',
      limit: 2,
    });
    expect(parse('id>3&profile=arithmetic.add').profile).toBe('arithmetic.add');
    expect(parse('id>3&profile=arithmetic.add').filters).toEqual(parse('id>3').filters);
    expect(parse('profile="arithmetic.add"').profile).toBe('arithmetic.add');
    expect(parse('profile=arithmetic%2Eadd').profile).toBe('arithmetic.add');
    expect(error('profile=a.b&profile=c').message).toMatch(/profile more than once/);
  });

  it('percent-decodes like Python unquote', () => {
    expect(unquote('a%20b%ZZ%22')).toBe('a b%ZZ"');
    expect(unquote('%C3%BC')).toBe('ü');
  });
});

describe('the query-string parser', () => {
  it('is the one generated from the grammar as it is now (npm run grammar writes it)', () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(parserSource());
  });
});
