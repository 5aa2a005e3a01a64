/** The benchmark's figures as tables (terminal and Markdown), and its ratios to the floors. */

export interface Measure {
  /** CPU time the server process spent per answer, in ms (all its threads); absent for --target. */
  cpuMs?: number;
  rps: number;
  /** Share of the machine's CPU time the host took for others during the measurement, in %. */
  stealPct: number;
  mean: number;
  p50: number;
  p99: number;
  errors: number;
  /** Of the errors: answers refused with 503, and requests the client gave up on. */
  refused: number;
  timeouts: number;
  /** Bytes received per answer, headers included (what compression saves). */
  bytes: number;
}

/** The run of the empty route that cost less per answer (CPU where it was read, else time at full load). */
export function cheaper(a: Measure, b: Measure): Measure {
  if (a.cpuMs !== undefined && b.cpuMs !== undefined) return a.cpuMs <= b.cpuMs ? a : b;
  return a.rps >= b.rps ? a : b;
}

/**
 * Cost of one answer over what HTTP alone costs per answer plus the raw database time of its SQL. The cost is
 * the server's CPU time per answer where it can be read (the load generator shares this machine's cores, so
 * throughput alone says as much about it as about the server), else the time per answer at full load.
 */
export function ratio(measured: Measure, http: Measure, dataMs: number): number | null {
  if (measured.cpuMs !== undefined && http.cpuMs !== undefined) {
    return Number((measured.cpuMs / (http.cpuMs + dataMs)).toFixed(2));
  }
  if (measured.rps === 0 || http.rps === 0) return null;
  return Number((1000 / measured.rps / (1000 / http.rps + dataMs)).toFixed(2));
}

/** The same table in Markdown, for docs/performance.md. */
export function markdownTable(rows: Record<string, unknown>[]): string {
  const head =
    '| request | conn | req/s | p50 ms | p99 ms | server CPU ms/req | db ms | cost / (http + db) | bytes/answer | steal % |';
  const lines = rows.map((r) => {
    const num = (v: unknown, digits: number) => (typeof v === 'number' ? v.toFixed(digits) : '');
    return `| ${String(r.kind)} | ${String(r.connections)} | ${Math.round(r.rps as number)} | ${String(r.p50)} | ${String(r.p99)} | ${num(r.cpuMs, 3)} | ${num(r.dataFloorMs, 3)} | ${num(r.ratioToFloors, 2)} | ${String(r.bytes)} | ${stealCell(r)} |`;
  });
  return [head, '|' + ' --- |'.repeat(10), ...lines].join('\n') + '\n';
}

/** The share stolen, and how many measurements it took to find one that steady (when more than one). */
function stealCell(r: Record<string, unknown>): string {
  const tries = r.tries as number | undefined;
  return tries !== undefined && tries > 1 ? `${String(r.stealPct)} (${tries} tries)` : String(r.stealPct);
}

export function printTable(rows: Record<string, unknown>[]) {
  const head = [
    'kind',
    'conn',
    'req/s',
    'mean ms',
    'p50 ms',
    'p99 ms',
    'errors',
    '503',
    'time-outs',
    'cpu ms/req',
    'db ms',
    'cost/(http+db)',
    'bytes',
    'steal %',
  ];
  const lines = rows.map((r) => [
    String(r.kind),
    String(r.connections),
    String(Math.round(r.rps as number)),
    (r.mean as number).toFixed(2),
    String(r.p50),
    String(r.p99),
    String(r.errors),
    String(r.refused ?? ''),
    String(r.timeouts ?? ''),
    r.cpuMs === undefined ? '' : (r.cpuMs as number).toFixed(3),
    r.dataFloorMs === undefined || r.dataFloorMs === null ? '' : String(r.dataFloorMs),
    r.ratioToFloors === undefined || r.ratioToFloors === null ? '' : String(r.ratioToFloors),
    String(r.bytes),
    stealCell(r),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  for (const line of [head, ...lines])
    console.log(line.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
}
