/** The zip's name index (name-index.ts) against a Map, and a zip's in-order reader against openStream. */
import { describe, expect, it } from 'vitest';
import { NameIndex } from '../src/storage/archive/name-index.js';
import { openZip } from '../src/storage/archive/zip.js';
import { readAll, zipOf } from './storage-fixtures.js';
import { randomBytes } from 'node:crypto';

describe('the name index of a zip', () => {
  it('holds what a Map holds: last value, first place, any name', () => {
    const index = new NameIndex();
    const map = new Map<string, number>();
    const names: string[] = [];
    for (let k = 0; k < 5000; k++) names.push(`nodes/${(k * 7919) % 3001}/path/file-${k % 97}.txt`);
    names.push('é/ü/日本語/😀.json', '', 'a'.repeat(70000), 'repo/');
    names.forEach((name, value) => {
      index.set(name, value);
      map.set(name, value);
    });
    expect(index.size).toBe(map.size);
    expect([...index.keys()]).toEqual([...map.keys()]);
    for (const name of map.keys()) expect(index.get(name)).toBe(map.get(name));
    expect(index.get('nodes/1/path/missing')).toBeUndefined();
    expect(index.get('é/ü/日本語/😀.jso')).toBeUndefined();
  });
});

describe('reading a zip in order', () => {
  for (const compress of [true, false]) {
    it(`gives every entry the bytes openStream gives, small or large (${compress ? 'deflated' : 'stored'})`, async () => {
      const entries: Record<string, Buffer> = {};
      for (let k = 0; k < 300; k++) entries[`nodes/${k}/a.txt`] = Buffer.from(`file ${k} `.repeat(k));
      entries['big.bin'] = randomBytes(200_000);
      entries['empty'] = Buffer.alloc(0);
      const zip = await openZip(await zipOf(entries, 'x.zip', compress));
      try {
        const read = zip.inOrder();
        const got: Buffer[] = [];
        for (const [name, data] of Object.entries(entries)) {
          const body = await read(name);
          const bytes = Buffer.isBuffer(body) ? body : await readAll(body);
          got.push(bytes);
          expect(bytes.equals(data), name).toBe(true);
          expect(bytes.equals(await zip.read(name)), name).toBe(true);
        }
        // What was given before is not overwritten by later reads.
        expect(got.every((bytes, k) => bytes.equals(Object.values(entries)[k]!))).toBe(true);
        await expect(read('absent')).rejects.toThrow(/no entry absent/);
      } finally {
        zip.close();
      }
    });
  }
});
