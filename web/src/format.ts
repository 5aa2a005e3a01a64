/** How values are shown: dates in the reader's time (UTC on hover), numbers, type names, sizes. */

/** A date of the API (RFC 1123, `Mon, 04 Mar 2019 10:31:13 GMT`) or ISO 8601; undefined if it is none. */
export function parseApiDate(value: unknown): Date | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `2019-03-04 11:31` in the reader's time zone (`timeZone` for tests). */
export function localDateTime(date: Date, timeZone?: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

/** `2019-03-04 10:31:13 UTC`: the exact value, shown on hover. */
export function utcDateTime(date: Date): string {
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} UTC`
  );
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** `data.core.structure.StructureData.` → `StructureData`; `process.calculation.calcjob.CalcJobNode.` → `CalcJobNode`. */
export function typeName(nodeType: string): string {
  const parts = nodeType.replace(/\.$/, '').split('.');
  return parts[parts.length - 1] || nodeType;
}

/** The name a person knows a node's kind by: the process class for processes, the data class otherwise. */
export function kindName(node: { node_type: string; process_type?: string | null }): string {
  const process = node.process_type;
  if (typeof process === 'string' && process !== '') {
    // `aiida.calculations:core.arithmetic.add` → `core.arithmetic.add`; `~no-entry-point~` paths keep their tail.
    const tail = process.split(':').pop() ?? process;
    return tail.split('|').pop() ?? tail;
  }
  return typeName(node.node_type);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Nodes created per month, every month between the first and the last included (empty ones as 0). */
export function perMonth(byDay: Record<string, number>): { month: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const [day, n] of Object.entries(byDay)) {
    const month = day.slice(0, 7);
    if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) continue;
    counts.set(month, (counts.get(month) ?? 0) + n);
  }
  const months = [...counts.keys()].sort();
  const first = months[0];
  const last = months[months.length - 1];
  if (first === undefined || last === undefined) return [];
  // Months counted from year 0: the walk ends at the last one whatever the years' widths.
  const index = (month: string) => Number(month.slice(0, 4)) * 12 + Number(month.slice(5)) - 1;
  const out: { month: string; count: number }[] = [];
  for (let i = index(first); i <= index(last); i++) {
    const key = `${String(Math.floor(i / 12)).padStart(4, '0')}-${pad((i % 12) + 1)}`;
    out.push({ month: key, count: counts.get(key) ?? 0 });
  }
  return out;
}

/** A user's name as people write it. */
export function userName(user: {
  first_name?: string;
  last_name?: string;
  email?: string;
  id: number;
}): string {
  const name = [user.first_name, user.last_name].filter((p) => p !== undefined && p !== '').join(' ');
  return name !== '' ? name : (user.email ?? `user ${user.id}`);
}

/** The type tree (`/nodes/full_types_count/`) as a list for a menu: each type with its depth, root left out. */
export function typeOptions(root: {
  full_type: string;
  label: string;
  counter?: number;
  subspaces: (typeof root)[];
}): { full_type: string; label: string; depth: number; counter?: number }[] {
  const out: { full_type: string; label: string; depth: number; counter?: number }[] = [];
  const walk = (space: typeof root, depth: number) => {
    out.push({ full_type: space.full_type, label: space.label, depth, counter: space.counter });
    for (const child of space.subspaces) walk(child, depth + 1);
  };
  for (const child of root.subspaces) walk(child, 0);
  return out;
}

/**
 * What a type filter that is not one of the tree's entries reads as in a menu: the `full_type` pattern of a
 * home shortcut (`data.core.array.bands.%|`) is named by the one tree entry it matches (`BandsData`), or by its
 * last word for several (`bands (any)`), not shown raw.
 */
export function typeFilterName(
  pattern: string,
  options: { full_type: string | null; label: string }[],
): string {
  const like = new RegExp(
    `^${pattern
      .split('%')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  const matched = options.filter(
    (o) => o.full_type !== null && !o.full_type.includes('%') && like.test(o.full_type),
  );
  if (matched.length === 1) return matched[0]!.label;
  const words = pattern
    .split('|')[0]!
    .split('.')
    .filter((w) => w !== '' && !w.includes('%'));
  return words.length === 0 ? pattern : `${words[words.length - 1]} (any)`;
}
