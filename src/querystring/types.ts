/** What the v4 query string says, in the shape the translators consume. */

/** The ten operators of the v4 query-string language. */
export type QsOperator = '=' | '!=' | '=in=' | '=notin=' | '>' | '<' | '>=' | '<=' | '=like=' | '=ilike=';

/** A scalar value: quoted string, bare word (identifier such as `-ctime`), number, boolean, or datetime. */
export type QsScalar = string | number | boolean | Date;
export type QsValue = QsScalar | QsScalar[];

/**
 * A QueryBuilder filter on one column, exactly as aiida-core's `build_translator_parameters` produces it:
 * `{"==": 5}`, `{"in": [1, 2]}`, or `{"and": [{">=": d1}, {"<": d2}]}` (datetime equality with precision,
 * or a key repeated in the query string).
 */
export type QsFilter = { [qbOperator: string]: QsValue | QsFilter[] };

export interface ParsedQueryString {
  limit?: QsValue;
  offset?: QsValue;
  perpage?: QsValue;
  /** Signed column names, e.g. ['-ctime', 'id']. Empty when absent. */
  orderby: QsScalar[];
  /** Column -> QueryBuilder filter; all reserved keys are removed. */
  filters: Record<string, QsFilter>;
  downloadFormat?: QsValue;
  /** Defaults to true, as in the reference. */
  download: QsValue;
  filename?: QsValue;
  inLimit?: QsValue;
  outLimit?: QsValue;
  attributes?: QsValue;
  attributesFilter?: QsValue;
  extras?: QsValue;
  extrasFilter?: QsValue;
  fullType?: QsValue;
  profile?: QsValue;
}
