/**
 * `NaN`, `Infinity` and `-Infinity` as Python's json writes them (allow_nan, its default): aiida-core 1.x wrote
 * them into data.json, which no JSON reader but Python's accepts. They are read as `null`, the value Quarry
 * writes for them in every JSON answer (src/domain/formats/python-text.ts): aiida-core's own migration copies
 * the Python tokens into the archive's database, where neither SQLite's JSON functions nor a JSON client read
 * them as numbers. Bytes inside strings are left as they are.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NULL = Buffer.from('null');
const WORDS = ['NaN', 'Infinity', '-Infinity'].map((w) => Buffer.from(w));
/** The bytes that may start a word, outside strings. */
const FIRST = new Set(WORDS.map((w) => w[0]!));

export class PythonFloats {
  /** How many were read as null. */
  count = 0;
  private inString = false;
  private escaped = false;
  /** The start of a word cut by the end of the last chunk. */
  private held = Buffer.alloc(0);

  /** `chunk` with the words replaced (bytes of a word cut at its end are held for the next). */
  filter(chunk: Buffer): Buffer {
    const input = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    this.held = Buffer.alloc(0);
    let out: Buffer[] | undefined;
    let from = 0;
    // The next quote and backslash at or after the current byte, searched again only once passed.
    let quote = -1;
    let backslash = -1;
    for (let i = 0; i < input.length; i++) {
      const c = input[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
        else {
          // The rest of a string's plain bytes in one step.
          if (quote !== -2 && quote < i) quote = input.indexOf(QUOTE, i);
          if (quote === -1) quote = -2;
          if (backslash !== -2 && backslash < i) backslash = input.indexOf(BACKSLASH, i);
          if (backslash === -1) backslash = -2;
          const next = quote === -2 ? backslash : backslash === -2 ? quote : Math.min(quote, backslash);
          if (next === -2) break;
          i = next - 1;
        }
        continue;
      }
      if (c === QUOTE) {
        this.inString = true;
        continue;
      }
      if (!FIRST.has(c)) continue;
      const word = WORDS.find((w) => startsWith(input, i, w));
      if (word === undefined) {
        // A word's start at the chunk's end waits for the rest; anything else is the tokenizer's to refuse.
        if (
          WORDS.some(
            (w) => w.length > input.length - i && w.subarray(0, input.length - i).equals(input.subarray(i)),
          )
        ) {
          (out ??= []).push(input.subarray(from, i));
          this.held = Buffer.from(input.subarray(i));
          return Buffer.concat(out);
        }
        continue;
      }
      (out ??= []).push(input.subarray(from, i), NULL);
      this.count++;
      i += word.length - 1;
      from = i + 1;
    }
    if (out === undefined) return input;
    out.push(input.subarray(from));
    return Buffer.concat(out);
  }

  /** What is still held at the end of the text (a cut word, for the tokenizer to refuse). */
  rest(): Buffer {
    return this.held;
  }
}

function startsWith(input: Buffer, at: number, word: Buffer): boolean {
  if (at + word.length > input.length) return false;
  for (let k = 0; k < word.length; k++) if (input[at + k] !== word[k]) return false;
  return true;
}
