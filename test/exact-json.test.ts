import { describe, expect, it } from 'vitest';
import { decodeValue, rowDecoder, rowDecodersCompiled } from '../src/query/decode.js';
import { carryMark, markFloat, markFloats, RawJson, toJson, wholeFloatText } from '../src/util/exact-json.js';
import { ExactNumber, parseJsonText, parseMarked } from '../src/util/json-text.js';

/** A text read with its containers marked, written again. */
const roundTrip = (text: string) => toJson(parseMarked(text));

describe('JSON texts read and written as the data holds them', () => {
  it('keeps whole-number floats floats, and their neighbours as they were', () => {
    const text =
      '{"SYSTEM": {"ecutrho": 240.0, "ecutwfc": 60}, "CONTROL": {"tprnfor": true}, "ELECTRONS": {"conv_thr": 1e-08}}';
    expect(roundTrip(text)).toBe(
      '{"SYSTEM":{"ecutrho":240.0,"ecutwfc":60},"CONTROL":{"tprnfor":true},"ELECTRONS":{"conv_thr":1e-8}}',
    );
  });

  it('hands plain numbers to the code that computes with them', () => {
    const value = parseJsonText('{"cell": [[0.0, 2.715, 2.715], [2.715, 0.0, 2.715]], "n": 240.0}') as {
      cell: number[][];
      n: number;
    };
    expect(value.cell[0]![0]).toBe(0);
    expect(typeof value.n).toBe('number');
    expect(value.n * 2).toBe(480);
    expect(Object.keys(value)).toEqual(['cell', 'n']);
    expect(JSON.stringify(value)).toBe('{"cell":[[0,2.715,2.715],[2.715,0,2.715]],"n":240}');
    expect(value).toEqual({
      cell: [
        [0, 2.715, 2.715],
        [2.715, 0, 2.715],
      ],
      n: 240,
    });
  });

  it('writes every whole-number float form Python and PostgreSQL store', () => {
    expect(roundTrip('[240.0, 240.000, -0.0, 1e+16, 1E16, 10000000000000000.0, 2.5e+1, 10e-1, 7e-0]')).toBe(
      '[240.0,240.0,-0.0,1e+16,1e+16,1e+16,25.0,1.0,7.0]',
    );
    // Not whole, or already written as floats by JSON.stringify: untouched.
    expect(roundTrip('[240.5, 1e-08, 0.00001, 1e+21, 1.5e-3]')).toBe('[240.5,1e-8,0.00001,1e+21,0.0015]');
  });

  it('keeps the digits of integers past 2^53', () => {
    expect(
      roundTrip('{"big": 12345678901234567890, "safe": 9007199254740991, "neg": -9007199254740993}'),
    ).toBe('{"big":12345678901234567890,"safe":9007199254740991,"neg":-9007199254740993}');
  });

  it('reads strings, escapes, nesting and odd keys as JSON.parse does', () => {
    const text =
      '{"a\\"b": "x\\u00e9\\n", "__proto__": 1.0, "1": [1.0, {"k": [2.0]}], "s": "1.0, 2.0", "e": [], "o": {}}';
    expect(parseJsonText(text)).toEqual(JSON.parse(text));
    const value = parseMarked(text);
    expect(value).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(toJson(value)).toBe(
      '{"1":[1.0,{"k":[2.0]}],"a\\"b":"xé\\n","__proto__":1.0,"s":"1.0, 2.0","e":[],"o":{}}',
    );
  });

  it('refuses what JSON.parse refuses', () => {
    for (const bad of ['{"a": 1.0,}', '[1.0', '{"a" 1.0}', '[01.0]', '[1.0] x']) {
      expect(() => parseJsonText(bad), bad).toThrow(SyntaxError);
    }
  });

  it('gives a whole-number float at the top of a text as an ExactNumber', () => {
    expect(parseJsonText('240.0')).toEqual(new ExactNumber(240, '240.0'));
    expect(parseJsonText('240')).toBe(240);
    expect(parseJsonText('99999999999999999999')).toEqual(new ExactNumber(1e20, '99999999999999999999'));
  });

  it('writes a value read from a text holding such numbers as that text', () => {
    const value = parseJsonText('{"x": 1.0}');
    expect(JSON.stringify(value)).toBe('{"x":1}');
    expect(toJson({ data: value, s: 'plain' })).toBe('{"data":{"x": 1.0},"s":"plain"}');
    expect(toJson({ s: 'plain' })).toBe('{"s":"plain"}');
    // Texts without them are read by JSON.parse alone and written by JSON.stringify.
    expect(toJson(parseJsonText('{"x": 1.5, "v": "1.05"}'))).toBe('{"x":1.5,"v":"1.05"}');
  });

  it('writes parts of such a value, taken apart, exactly', () => {
    const from = parseJsonText('{"cell": [[0.0, 1.5]], "n": 2.0, "s": "x"}') as Record<string, unknown>;
    const to: Record<string, unknown> = { cell: from.cell, n: from.n };
    carryMark(from, 'cell', to);
    carryMark(from, 'n', to);
    expect(to).toEqual({ cell: [[0, 1.5]], n: 2 });
    expect(toJson(to)).toBe('{"cell":[[0.0,1.5]],"n":2.0}');
  });

  it('writes nothing for a number no longer at its key', () => {
    const value = parseMarked('{"x": 1.0, "y": 2.0}') as Record<string, number>;
    value.x = 1.5;
    value.y = 3;
    expect(toJson(value)).toBe('{"x":1.5,"y":3}');
  });

  it('carries marks into copies, and marks computed floats', () => {
    const from = parseMarked('{"x": 1.0}') as Record<string, number>;
    const to = { y: from.x };
    carryMark(from, 'x', to, 'y');
    const dim = { dim: 3, value: 27 };
    markFloat(dim, 'value');
    const points = markFloats([
      [0, 0.5, 1],
      [2, 3, 4],
    ]);
    expect(toJson({ to, dim, points })).toBe(
      '{"to":{"y":1.0},"dim":{"dim":3,"value":27.0},"points":[[0.0,0.5,1.0],[2.0,3.0,4.0]]}',
    );
  });

  it('embeds raw JSON text', () => {
    expect(toJson({ bands: new RawJson('{"x": [0.0, 1.5]}') })).toBe('{"bands":{"x": [0.0, 1.5]}}');
    expect(JSON.stringify({ bands: new RawJson('{"x": [0.0]}') })).toBe('{"bands":{"x":[0]}}');
  });

  it('cannot be fooled by data that looks like a marker', () => {
    const text = '{"s": "\\u0000abc:0", "x": 1.0}';
    expect(toJson(parseJsonText(text))).toBe(text);
    expect(toJson(parseMarked(text))).toBe('{"s":"\\u0000abc:0","x":1.0}');
  });

  it('names Python float texts', () => {
    expect([240, -0, 0, 1e15, 1e16, 1.5e20].map(wholeFloatText)).toEqual([
      '240.0',
      '-0.0',
      '0.0',
      '1000000000000000.0',
      '1e+16',
      '1.5e+20',
    ]);
  });
});

describe('row decoders', () => {
  it('are compiled once per shape: queries that differ only in their values share one', () => {
    const decoders = (tag: string) =>
      [{ tag, key: 'id', shape: 'scalar', columns: [{ as: 'c0', name: 'id', type: 'integer' }] }] as never;
    const before = rowDecodersCompiled();
    const first = rowDecoder(decoders('shared-shape'), ['c0']);
    const second = rowDecoder(decoders('shared-shape'), ['c0']);
    expect(rowDecodersCompiled()).toBe(before + 1);
    expect(first([7])).toEqual({ 'shared-shape': { id: 7 } });
    expect(second([8])).toEqual({ 'shared-shape': { id: 8 } });
    // Another shape (another tag) is another decoder.
    const other = rowDecoder(decoders('other-shape'), ['c0']);
    expect(rowDecodersCompiled()).toBe(before + 2);
    expect(other([9])).toEqual({ 'other-shape': { id: 9 } });
  });
});

describe('rows decoded with exact numbers', () => {
  it('marks a projected whole-number float in its record, and decodes others as before', () => {
    const decode = rowDecoder(
      [
        {
          tag: 'n',
          key: 'attributes.x',
          shape: 'scalar',
          columns: [{ as: 'c0', name: 'attributes.x', type: 'json' }],
        },
        {
          tag: 'n',
          key: 'attributes',
          shape: 'scalar',
          columns: [{ as: 'c1', name: 'attributes', type: 'json' }],
        },
      ] as never,
      ['c0', 'c1'],
    );
    const row = decode(['240.0', '{"y": 2.0, "z": 0.5}']);
    expect(row).toEqual({ n: { 'attributes.x': 240, attributes: { y: 2, z: 0.5 } } });
    expect(toJson(row)).toBe('{"n":{"attributes.x":240.0,"attributes":{"y": 2.0, "z": 0.5}}}');
    const plain = decode(['240', '{"y": 2}']);
    expect(toJson(plain)).toBe('{"n":{"attributes.x":240,"attributes":{"y":2}}}');
    expect(decodeValue('[1.0]', 'json')).toEqual([1]);
  });
});
