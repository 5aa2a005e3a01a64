/**
 * data.json's values read with their numbers as written: a float written `40.0` or `1e-05`, or an integer
 * past 2^53, is kept as its text (RawJson) and written back as it, as aiida-core's migration (Python's json)
 * keeps them; Quarry's answers show them so (src/util/json-text.ts).
 */
import { Tokenizer, TokenParser, TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { RawJson, toJson } from '../../../util/exact-json.js';
import { LegacyArchiveError, MAX_JSON_DEPTH, MAX_NUMBER_CHARS, MAX_STRING_BYTES } from './limits.js';
import { boundTokens } from './token-bounds.js';

export { toJson };

/** A number as JavaScript reads it when JSON.stringify writes it back the same, else its text. */
export function exactNumber(text: string): number | RawJson {
  const value = Number(text);
  return String(value) === text ? value : new RawJson(text);
}

class ExactTokenizer extends Tokenizer {
  /** `bounded`: for data.json as it is read; its records, staged once read, are bounded already. */
  constructor(bounded: boolean) {
    super();
    if (bounded) boundTokens(this, MAX_STRING_BYTES, MAX_NUMBER_CHARS);
  }

  protected override parseNumber(text: string): number {
    return exactNumber(text) as number;
  }
}

/**
 * A tokenizer that keeps numbers exact, refuses nesting past MAX_JSON_DEPTH and (`object`) a text that is not
 * one JSON object, and ends its parser with it (so a text cut short is an error). Given a `watch`, which sees
 * every token before the parser, it bounds strings and numbers too (token-bounds.ts).
 */
export function exactTokenizer(
  parser: TokenParser,
  where: () => string,
  object = false,
  watch?: (info: ParsedTokenInfo) => void,
): Tokenizer {
  const tokenizer = new ExactTokenizer(watch !== undefined);
  let depth = 0;
  let first = true;
  tokenizer.onEnd = () => {
    if (!parser.isEnded) parser.end();
  };
  tokenizer.onToken = (info) => {
    const token = info.token;
    if (first && object && token !== TokenType.LEFT_BRACE) {
      throw new LegacyArchiveError(`${where()} is not a JSON object`);
    }
    first = false;
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new LegacyArchiveError(
          `${where()} nests values more than ${MAX_JSON_DEPTH} levels deep, which no AiiDA archive does`,
        );
      }
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) depth--;
    watch?.(info);
    parser.write(info);
  };
  return tokenizer;
}

/** One JSON text (a staged record) -> its value, numbers exact. */
export function parseExact(text: string): unknown {
  const parser = new TokenParser();
  let out: unknown;
  parser.onValue = ({ value, stack }) => {
    if (stack.length === 0) out = value;
  };
  const tokenizer = exactTokenizer(parser, () => 'a value');
  tokenizer.write(text);
  tokenizer.end();
  return out;
}
