/** The repository endpoints' query parameters. Pure. */

export interface Entry {
  name: string;
  type: 'FILE' | 'DIRECTORY';
}

/** A quoted query parameter of the API, `name="value"` (the quotes are part of the API), percent-encoded. */
export const quotedParam = (name: string, value: string): string =>
  `${name}=${encodeURIComponent(JSON.stringify(value))}`;

/** The `filename="…"` query of the repository endpoints. */
export const filenameQuery = (path: string): string => quotedParam('filename', path);
