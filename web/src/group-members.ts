/**
 * A group's members through the v4 API's querybuilder (its only way to a group's nodes): one page of them, and
 * their number as one aggregate row (`count` of the members' ids), so a group of millions costs one small answer.
 */
import type { Api } from './api.js';
import type { Group } from './types.js';

function path(group: Group) {
  return [
    // The group's own type (`group.core.upf`), so that groups of every kind match.
    { entity_type: `group.${group.type_string || 'core'}`, orm_base: 'group', tag: 'g' },
    {
      entity_type: 'node.Node.',
      orm_base: 'node',
      tag: 'n',
      joining_keyword: 'with_group',
      joining_value: 'g',
    },
  ];
}

export function membersQuery(group: Group, columns: string[], limit: number, offset: number) {
  return {
    path: path(group),
    filters: { g: { uuid: { '==': group.uuid } } },
    project: { n: columns },
    order_by: [{ n: [{ id: { order: 'asc' } }] }],
    limit,
    offset,
  };
}

// Counts of a list page's groups go a few at a time: posted queries have a lane of their own on the server,
// and a page of 50 groups must not fill it.
const MOST_AT_ONCE = 3;
let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(run: () => Promise<T>): Promise<T> {
  if (running >= MOST_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await run();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

/** How many nodes the group holds. */
export function memberCount(api: Api, group: Group, signal?: AbortSignal): Promise<number> {
  return inTurn(async () => {
    if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
    const answer = await api.query<{ n?: { id?: unknown }[] }>(
      {
        path: path(group),
        filters: { g: { uuid: { '==': group.uuid } } },
        project: { n: [{ id: { func: 'count' } }] },
      },
      { signal },
    );
    const n = Number(answer.data.n?.[0]?.id ?? 0);
    if (!Number.isFinite(n)) throw new Error(`The count of ${group.label}'s nodes is not a number.`);
    return n;
  });
}
