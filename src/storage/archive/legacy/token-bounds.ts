/**
 * Bounds on the tokens of a streamed JSON text, enforced while a token is read rather than after: the
 * tokenizer of @streamparser/json (0.0.x, pinned by npm's caret) gathers a string or a number in an
 * accumulator with no limit, one JavaScript string per digit of a number, so that a number of 180 million
 * digits ended the process ("invalid size") before any token was emitted. Its accumulators are replaced by
 * these, which keep bytes in a buffer (no per-character strings) and throw a TokenBoundError at the bound.
 */
import type { Tokenizer } from '@streamparser/json';

/** A token of the text is longer than its bound; `what` says which (for a message naming the record). */
export class TokenBoundError extends Error {
  override name = 'TokenBoundError';
  constructor(readonly what: string) {
    super(what);
  }
}

const CHUNK = 64 << 10;

/** The accumulator interface of @streamparser/json's tokenizer (utils/bufferedString.js). */
class BoundedText {
  private buffer = new Uint8Array(CHUNK);
  private at = 0;
  private pieces: string[] = [];
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  byteLength = 0;
  private counted = 0;

  constructor(
    private readonly limit: number,
    private readonly what: string,
  ) {}

  private grow(bytes: number): void {
    this.counted += bytes;
    if (this.counted > this.limit) throw new TokenBoundError(this.what);
  }

  private flush(): void {
    if (this.at === 0) return;
    this.pieces.push(this.decoder.decode(this.buffer.subarray(0, this.at)));
    this.at = 0;
  }

  appendChar(char: number): void {
    this.grow(1);
    if (this.at === CHUNK) this.flush();
    this.buffer[this.at++] = char;
    this.byteLength += 1;
  }

  appendBuf(buf: Uint8Array, start = 0, end = buf.length): void {
    const size = end - start;
    this.grow(size);
    if (this.at + size > CHUNK) this.flush();
    // The tokenizer appends whole characters only, so a span decoded on its own cuts none.
    if (size > CHUNK) this.pieces.push(this.decoder.decode(buf.subarray(start, end)));
    else {
      this.buffer.set(buf.subarray(start, end), this.at);
      this.at += size;
    }
    this.byteLength += size;
  }

  appendCharCode(code: number): void {
    this.grow(3);
    this.flush();
    this.pieces.push(String.fromCharCode(code));
  }

  reset(): void {
    this.at = 0;
    this.pieces = [];
    this.byteLength = 0;
    this.counted = 0;
  }

  toString(): string {
    this.flush();
    if (this.pieces.length > 1) this.pieces = [this.pieces.join('')];
    return this.pieces[0] ?? '';
  }
}

interface Accumulators {
  bufferedString: unknown;
  bufferedNumber: unknown;
}

/** Gives `tokenizer` bounded accumulators: strings up to `stringBytes`, numbers up to `numberChars`. */
export function boundTokens(tokenizer: Tokenizer, stringBytes: number, numberChars: number): void {
  const fields = tokenizer as unknown as Accumulators;
  // A release of the parser that renamed them would otherwise leave the bounds silently unenforced.
  if (!('bufferedString' in fields) || !('bufferedNumber' in fields)) {
    throw new Error("@streamparser/json's tokenizer no longer has the accumulators Quarry bounds");
  }
  fields.bufferedString = new BoundedText(stringBytes, `a string of more than ${stringBytes} bytes`);
  fields.bufferedNumber = new BoundedText(numberChars, `a number of more than ${numberChars} characters`);
}
