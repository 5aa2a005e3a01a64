/**
 * What a crowd does to the others: each kind's throughput at the most clients against one client's, and a
 * cheap request's latency alone and beside clients of a heavy kind (single nodes while plots are downloaded).
 */
import type { DriveResult } from './drive.js';
import type { RequestKind } from './mix.js';

/** The row of the HTTP floor of a large answer (main.ts): kept bytes of the explorer grid's size. */
export const LARGE_FLOOR = "large answer floor (the grid's bytes kept, bare server)";

export interface CrowdRatio {
  kind: string;
  connections: number;
  rps: number;
  soloRps: number;
  /** rps / soloRps: below 1, the crowd costs more than its work (waits, hops, garbage collection). */
  ratio: number;
}

/** Each kind's throughput at the most clients against one client's (the same requests one after another). */
export function crowdRatios(rows: Record<string, unknown>[], levels: number[]): CrowdRatio[] {
  const most = Math.max(...levels);
  if (!levels.includes(1) || most === 1) return [];
  const at = (kind: unknown, connections: number) =>
    rows.find((r) => r.kind === kind && r.connections === connections);
  return rows
    .filter((r) => r.connections === most && !String(r.kind).startsWith('empty route'))
    .flatMap((r) => {
      const solo = at(r.kind, 1);
      if (!solo || !((solo.rps as number) > 0)) return [];
      const rps = Math.round(r.rps as number);
      const soloRps = Math.round(solo.rps as number);
      return [
        { kind: String(r.kind), connections: most, rps, soloRps, ratio: Number((rps / soloRps).toFixed(2)) },
      ];
    });
}

export interface Beside {
  quiet: string;
  noisy: string;
  noisyConnections: number;
  alone: Pick<DriveResult, 'p50' | 'p99' | 'rps' | 'errors'>;
  beside: Pick<DriveResult, 'p50' | 'p99' | 'rps' | 'errors'>;
  noisyFigures: Pick<DriveResult, 'p50' | 'p99' | 'rps' | 'errors'>;
}

type Load = (kind: RequestKind, connections: number) => Promise<DriveResult>;

const figures = ({ p50, p99, rps, errors }: DriveResult) => ({ p50, p99, rps: Math.round(rps), errors });

/** `quiet` at one client alone, then again while `noisyConnections` clients drive `noisy`. */
export async function besideOthers(
  load: Load,
  quiet: RequestKind,
  noisy: RequestKind,
  noisyConnections: number,
): Promise<Beside> {
  const alone = await load(quiet, 1);
  const [beside, noisyRun] = await Promise.all([load(quiet, 1), load(noisy, noisyConnections)]);
  return {
    quiet: quiet.name,
    noisy: noisy.name,
    noisyConnections,
    alone: figures(alone),
    beside: figures(beside),
    noisyFigures: figures(noisyRun),
  };
}
