/**
 * Where whole answers are kept (src/ops/kept-gets.ts): in this process's memory, or in a file every serving
 * process of the machine reads (answer-file.ts). Either holds at most its bound in bytes and lets the least
 * recently used go first.
 */
import { BytesKept } from '../util/bytes-kept.js';

export interface KeptAnswer {
  body: Buffer;
  /** The headers the route set (Content-Type, X-Total-Count, Link, …), lower-case names. */
  headers: Record<string, string>;
}

export interface AnswerStore {
  /** Whether other processes read the same answers: keys must then name nothing of this process. */
  readonly shared: boolean;
  get(key: string): KeptAnswer | undefined;
  set(key: string, answer: KeptAnswer): void;
  readonly size: { entries: number; bytes: number };
  close(): void;
}

const headerBytes = (headers: Record<string, string>) =>
  Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length, 0);

export function memoryAnswerStore(capacityBytes: number): AnswerStore {
  const kept = new BytesKept<KeptAnswer>(capacityBytes, (a) => a.body.length + headerBytes(a.headers));
  return {
    shared: false,
    get: (key) => kept.get(key),
    set: (key, answer) => kept.set(key, answer),
    get size() {
      return kept.size;
    },
    close: () => undefined,
  };
}
