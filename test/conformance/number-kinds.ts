/**
 * Whether numbers have the type the reference gave them. Python's json reads a number with a fraction or an
 * exponent as a float and any other as an int; JSON.parse cannot tell, so the texts are compared here:
 * `240.0` where the reference wrote `240.0`, and an integer's every digit.
 */

type Kinds = Map<string, string>;

const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const TAG = '\u0001';

/** Path -> `float` or `int` (with its digits past 2^53), for every number of a JSON text. */
export function numberKinds(text: string): Kinds {
  const tagged = text.replace(TOKENS, (token) => {
    if (token.startsWith('"')) return token;
    if (/[.eE]/.test(token)) return JSON.stringify(`${TAG}float`);
    // Values are the other comparison's; only digits JSON.parse would lose are compared here.
    const long = !Number.isSafeInteger(Number(token));
    return JSON.stringify(`${TAG}int${long ? ` ${BigInt(token)}` : ''}`);
  });
  const kinds: Kinds = new Map();
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'string' && value.startsWith(TAG)) kinds.set(path, value.slice(1));
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`));
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
  };
  walk(JSON.parse(tagged), '');
  return kinds;
}

/**
 * The first number of an answer whose type differs from the number at the same place of the recorded answer
 * (`data` of the envelope; a recorded line holds it under `body`).
 */
export function numberKindDifference(goldenLine: string, answer: string): string | undefined {
  const actual = numberKinds(answer);
  for (const [path, kind] of numberKinds(goldenLine)) {
    if (!path.startsWith('.body.data')) continue;
    const at = path.slice('.body'.length);
    const got = actual.get(at);
    if (got !== undefined && got !== kind) return `number at ${at}: ${got}, the reference wrote ${kind}`;
  }
  return undefined;
}
