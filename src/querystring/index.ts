export { parseQueryString, QueryStringError, unquote } from './parse.js';
export type * from './types.js';
