/** Normalisation and comparison of answers, by the rules in test/fixtures/conformance/README.md. */

const HOST = /https?:\/+[^/\s"]+/g;
const ENDPOINT_LINE = /^(\S+\s+)([A-Z,]+)(\s+\S.*)$/;

/** Scheme/host/port become `http://HOST`; the method order in endpoint listings is made canonical. */
export function normalise(value: unknown): unknown {
  if (typeof value === 'string') {
    const s = value.replace(HOST, 'http://HOST');
    const m = ENDPOINT_LINE.exec(s);
    if (m && m[2]!.split(',').every((x) => ['GET', 'HEAD', 'OPTIONS', 'POST'].includes(x))) {
      return `${m[1]!.trim()} ${m[2]!.split(',').sort().join(',')} ${m[3]!.trim()}`;
    }
    return s;
  }
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]));
  }
  return value;
}

/** The first place two JSON values differ (keys compared as sets, lists in order), or undefined. */
/**
 * The first difference between two JSON values. `ulps` > 0 lets numbers differ in their last bits (relative
 * 2^-52 per ulp): exported numbers computed by the C library's pow differ between platforms.
 */
export function firstDiff(a: unknown, b: unknown, path = 'body', ulps = 0): string | undefined {
  if (typeof a === 'number' && typeof b === 'number') {
    const close = Math.abs(a - b) <= ulps * 2 ** -52 * Math.max(Math.abs(a), Math.abs(b));
    return a === b || close ? undefined : `${path}: ${a} != ${b}`;
  }
  const ta = Array.isArray(a) ? 'array' : a === null ? 'null' : typeof a;
  const tb = Array.isArray(b) ? 'array' : b === null ? 'null' : typeof b;
  if (ta !== tb) return `${path}: ${ta} != ${tb}`;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: length ${a.length} != ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDiff(a[i], b[i], `${path}[${i}]`, ulps);
      if (d) return d;
    }
    return undefined;
  }
  if (ta === 'object') {
    const oa = a as Record<string, unknown>;
    const ob = b as Record<string, unknown>;
    for (const k of [...new Set([...Object.keys(oa), ...Object.keys(ob)])].sort()) {
      if (!(k in oa)) return `${path}/${k}: only in Quarry's answer`;
      if (!(k in ob)) return `${path}/${k}: missing from Quarry's answer`;
      const d = firstDiff(oa[k], ob[k], `${path}/${k}`, ulps);
      if (d) return d;
    }
    return undefined;
  }
  return a === b
    ? undefined
    : `${path}: ${JSON.stringify(a)?.slice(0, 80)} != ${JSON.stringify(b)?.slice(0, 80)}`;
}

/** Lists of objects compared as multisets, where the reference leaves the order undefined. */
export function sortLists(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(sortLists).sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sortLists(v)]));
  }
  return value;
}

export function mediaType(contentType: string | null | undefined): string | null {
  return contentType ? (contentType.split(';')[0] ?? '').trim().toLowerCase() : null;
}

/** Where the reference puts an error message: `message`, or `data.message` in an envelope. */
export function errorMessage(body: unknown): unknown {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.message === 'string') return b.message;
  const data = b.data as Record<string, unknown> | undefined;
  return data && typeof data.message === 'string' ? data.message : undefined;
}
