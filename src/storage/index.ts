export { openArchive, type OpenArchiveOptions } from './archive/archive.js';
export { defaultCacheDir } from './cache-dir.js';
export * from './types.js';
