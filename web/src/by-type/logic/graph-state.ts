/**
 * The provenance graph's state that outlives the page: the expansions and the selected node in the address
 * (`?graph=<uuid>,<uuid>&selected=<uuid>`, so that a reload or a shared link draws the same picture: expansions
 * are replayed in order, and the placement is deterministic), and the trail of visited nodes in the tab's
 * session storage. Pure; the view reads and writes `location` and `sessionStorage`.
 */

export interface GraphState {
  /** Nodes expanded after the page's own, in the order they were. */
  expanded: string[];
  selected?: string;
}

/** More expansions than this in one address are ignored: each is one request when the link is opened. */
export const MAX_EXPANSIONS = 40;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function readGraphState(search: string): GraphState {
  const params = new URLSearchParams(search);
  const expanded = [
    ...new Set(
      (params.get('graph') ?? '')
        .split(',')
        .map((u) => u.trim().toLowerCase())
        .filter((u) => UUID.test(u)),
    ),
  ].slice(0, MAX_EXPANSIONS);
  const selected = params.get('selected')?.trim().toLowerCase();
  return { expanded, selected: selected && UUID.test(selected) ? selected : undefined };
}

/** The query string with the graph's state in place of what it said before; other parameters are kept. */
export function writeGraphState(search: string, state: GraphState): string {
  const params = new URLSearchParams(search);
  params.delete('graph');
  params.delete('selected');
  if (state.expanded.length > 0) params.set('graph', state.expanded.join(','));
  if (state.selected) params.set('selected', state.selected);
  // Commas and UUIDs need no escaping; URLSearchParams would write %2C.
  const q = params.toString().replace(/%2C/gi, ',');
  return q === '' ? '' : `?${q}`;
}

export interface TrailItem {
  uuid: string;
  caption: string;
}

export const TRAIL_LENGTH = 12;

/** The trail as stored; anything unreadable is an empty trail. */
export function parseTrail(stored: string | null): TrailItem[] {
  if (!stored) return [];
  try {
    const value: unknown = JSON.parse(stored);
    if (!Array.isArray(value)) return [];
    return value
      .filter(
        (t): t is TrailItem =>
          typeof t === 'object' &&
          t !== null &&
          typeof (t as TrailItem).uuid === 'string' &&
          UUID.test((t as TrailItem).uuid) &&
          typeof (t as TrailItem).caption === 'string',
      )
      .slice(-TRAIL_LENGTH);
  } catch {
    return [];
  }
}

/** The trail with `item` last (moved there when it was already on it), at most TRAIL_LENGTH long. */
export function extendTrail(trail: TrailItem[], item: TrailItem): TrailItem[] {
  return [...trail.filter((t) => t.uuid !== item.uuid), item].slice(-TRAIL_LENGTH);
}
