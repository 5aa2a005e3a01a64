import { describe, expect, it } from 'vitest';
import { listHeaders } from '../src/http/envelope.js';
import { quoteUrlPart } from '../src/http/url.js';
import { listEndpoints, routePath } from '../src/http/endpoints.js';

describe('listHeaders', () => {
  it('always sets X-Total-Count and exposes it', () => {
    expect(listHeaders(7)).toEqual({
      'X-Total-Count': '7',
      'Access-Control-Expose-Headers': 'X-Total-Count',
    });
  });

  it('writes page links with a correct http:// URL and the query string kept', () => {
    const h = listHeaders(12, 'http://h:5/api/v4/groups/page/2/?perpage=3&orderby=id', {
      prev: 1,
      next: 3,
      first: 1,
      last: 4,
    });
    expect(h.Link).toBe(
      '<http://h:5/api/v4/groups/page/1?perpage=3&orderby=id>; rel=prev, ' +
        '<http://h:5/api/v4/groups/page/3?perpage=3&orderby=id>; rel=next, ' +
        '<http://h:5/api/v4/groups/page/1?perpage=3&orderby=id>; rel=first, ' +
        '<http://h:5/api/v4/groups/page/4?perpage=3&orderby=id>; rel=last, ',
    );
    expect(h['Access-Control-Expose-Headers']).toBe('X-Total-Count,Link');
  });

  it('handles /page/ without a number and leaves out missing neighbours', () => {
    const h = listHeaders(4, 'http://h/api/v4/users/page/', { prev: null, next: null, first: 1, last: 1 });
    expect(h.Link).toBe(
      '<http://h/api/v4/users/page/1>; rel=first, <http://h/api/v4/users/page/1>; rel=last, ',
    );
  });
});

describe('endpoint listing', () => {
  it('lists the 46 endpoints of the spec table (45 without posting)', () => {
    const all = listEndpoints('/api/v4', true);
    expect(all).toHaveLength(46);
    expect(listEndpoints('/api/v4', false)).toHaveLength(45);
    expect(all).toContain('nodes           GET,HEAD,OPTIONS     /api/v4/nodes/page/<int:page>/');
    expect(all).toContain('querybuilder    GET,POST,HEAD,OPTIONS /api/v4/querybuilder/');
    expect([...all].sort()).toEqual(all);
  });

  it('maps placeholders onto router parameters', () => {
    expect(routePath('/api/v4', '/nodes/<id>/links/incoming/page/<int:page>/')).toBe(
      '/api/v4/nodes/:id/links/incoming/page/:page(^\\d+$)',
    );
  });
});

describe('quoteUrlPart', () => {
  /** Werkzeug's quoting, one character at a time: what every URL in an answer must agree with. */
  function quotedCharByChar(text: string, safe: string): string {
    let out = '';
    for (const ch of text) {
      if (/[A-Za-z0-9_.\-~]/.test(ch) || safe.includes(ch)) out += ch;
      else
        out += [...new TextEncoder().encode(ch)]
          .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
          .join('');
    }
    return out;
  }

  it('quotes exactly what may not stand raw, whichever characters the safe set holds', () => {
    const alphabet = [
      'a',
      'Z',
      '9',
      '-',
      '_',
      '.',
      '~',
      '/',
      ':',
      '&',
      '%',
      '=',
      '+',
      '$',
      '!',
      '*',
      "'",
      '(',
      ')',
      ',',
      '"',
      '|',
      ' ',
      ']',
      '^',
      '\\',
      '[',
      'é',
      '#',
      '?',
    ];
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (const safe of ['/', ":&%=+$!*'(),", ']^\\-']) {
      for (let i = 0; i < 500; i++) {
        const text = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join('');
        expect(quoteUrlPart(text, safe)).toBe(quotedCharByChar(text, safe));
      }
    }
  });
});
