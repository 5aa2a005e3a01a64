/** Repository paths and how a file is previewed. Pure. */

export interface Entry {
  name: string;
  type: 'FILE' | 'DIRECTORY';
}

/** The path of `name` inside folder `folder` ('' is the top). */
export const joinPath = (folder: string, name: string): string =>
  folder === '' ? name : `${folder}/${name}`;

/** The parent folder of a path ('' for a top-level entry). */
export const parentPath = (path: string): string => path.split('/').slice(0, -1).join('/');

/** A quoted query parameter of the API, `name="value"` (the quotes are part of the API), percent-encoded. */
export const quotedParam = (name: string, value: string): string =>
  `${name}=${encodeURIComponent(JSON.stringify(value))}`;

/** The `filename="…"` query of the repository endpoints. */
export const filenameQuery = (path: string): string => quotedParam('filename', path);

/** Folders first, then files, each by name. */
export function sortEntries(entries: Entry[]): Entry[] {
  return [...entries].sort((a, b) =>
    a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'DIRECTORY' ? -1 : 1,
  );
}

const IMAGES = /\.(png|jpe?g|gif|svg|webp|bmp)$/i;
export const isImageName = (name: string): boolean => IMAGES.test(name);

/** Whether bytes read as text: no NUL in the first 8 kB and valid UTF-8. */
export function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.length < bytes.length ? trimPartial(head) : head);
    return true;
  } catch {
    return false;
  }
}

/** A prefix cut mid-character would fail strict decoding; drop an incomplete trailing sequence. */
function trimPartial(bytes: Uint8Array): Uint8Array {
  const end = bytes.length;
  for (let i = 1; i <= 3 && end - i >= 0; i++) {
    const b = bytes[end - i] as number;
    if ((b & 0xc0) === 0xc0) return bytes.subarray(0, end - i);
    if ((b & 0x80) === 0) break;
  }
  return bytes.subarray(0, end);
}
