/** Checks across sections of a QueryBuilder dictionary: what its projections and its order ask of each other. */
import type { OrderItem, Projection } from './model.js';
import { fail } from './validate.js';

const nameOf = (p: Projection) => (p.kind === 'field' ? p.key : p.kind === 'all' ? '**' : '*');

/**
 * A `func` folds all rows into one, and the query has no GROUP BY: beside it, a plain column has no single
 * value (PostgreSQL refuses the query; SQLite would answer the column of an arbitrary row).
 */
export function checkAggregates(projections: Map<string, Projection[]>): void {
  const all = [...projections.values()].flat();
  const aggregated = all.find((p) => p.kind === 'field' && p.func !== undefined);
  const plain = all.find((p) => p.kind !== 'field' || p.func === undefined);
  if (aggregated && plain) {
    fail(
      'project',
      `"${nameOf(aggregated)}" has a "func", which folds all rows into one; "${nameOf(plain)}" beside it needs ` +
        'a "func" too (count, max, min or sum), or goes in a query of its own',
    );
  }
}

/**
 * With `distinct`, rows are told apart by the projected values only, so an order by anything else has no
 * meaning (which of the merged rows would give it?): PostgreSQL refuses it, and so does Quarry on every
 * backend. A JSON path cannot be matched with its projection in the SQL, so it is refused too.
 */
export function checkDistinctOrder(order: OrderItem[], projections: Map<string, Projection[]>): void {
  for (const o of order) {
    const name = [o.field.column, ...o.field.path].join('.');
    const where = `order_by.${o.tag}.${name}`;
    if (o.field.path.length > 0) {
      fail(where, 'with "distinct", order by plain columns only, not by a path into a JSON column');
    }
    const projected = (projections.get(o.tag) ?? []).some((p) =>
      p.kind === 'field'
        ? p.func === undefined &&
          p.field.path.length === 0 &&
          p.field.column === o.field.column &&
          p.cast === o.cast
        : o.cast === undefined,
    );
    if (!projected) {
      fail(where, `with "distinct", order by projected columns only; project "${name}" of "${o.tag}" too`);
    }
  }
}
