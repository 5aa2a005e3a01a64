import { describe, expect, it } from 'vitest';
import { derivedFrom } from '../src/util/derived.js';

describe('derivedFrom', () => {
  it('makes a value once per owner and name, and keeps it as long as its owner', () => {
    let made = 0;
    const make = () => ({ n: ++made });
    const a = {};
    const b = {};
    const first = derivedFrom(a, 'x', make);
    expect(derivedFrom(a, 'x', make)).toBe(first);
    expect(derivedFrom(a, 'y', make)).not.toBe(first);
    expect(derivedFrom(b, 'x', make)).not.toBe(first);
    expect(made).toBe(3);
  });

  it('keeps at most `most` names per owner and makes the others afresh each time', () => {
    const owner = {};
    for (let i = 0; i < 3; i++) derivedFrom(owner, `w${i}`, () => ({ i }), 3);
    const extra = derivedFrom(owner, 'w3', () => ({ i: 3 }), 3);
    expect(extra).toEqual({ i: 3 });
    expect(derivedFrom(owner, 'w3', () => ({ i: 3 }), 3)).not.toBe(extra);
    expect(derivedFrom(owner, 'w0', () => ({ i: -1 }), 3)).toEqual({ i: 0 });
  });
});
