/** The processes of this machine as /proc shows them (Linux): for CPU accounting and process-tree checks. */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessEntry {
  ppid: number;
  /** User + system CPU time so far, in ms. */
  cpuMs: number;
}

export function processTable(): Map<number, ProcessEntry> {
  const table = new Map<number, ProcessEntry>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      // ppid is field 4 of stat(5); utime and stime are fields 14 and 15, in clock ticks (100 a second).
      table.set(Number(entry), {
        ppid: Number(fields[1]),
        cpuMs: (Number(fields[11]) + Number(fields[12])) * 10,
      });
    } catch {
      // The process ended while being read.
    }
  }
  return table;
}

/** `pid` and all its descendants (empty when `pid` is not running). */
export function processTree(pid: number, table = processTable()): Set<number> {
  const tree = new Set<number>();
  if (!table.has(pid)) return tree;
  tree.add(pid);
  for (let size = 0; size !== tree.size;) {
    size = tree.size;
    for (const [p, { ppid }] of table) if (tree.has(ppid)) tree.add(p);
  }
  return tree;
}

/**
 * CPU time of the whole machine so far (all cores, clock ticks) and the part of it stolen by the host: on a
 * shared virtual machine, a measurement taken while others ran on the same host says so in its steal share.
 */
export function machineTicks(): { total: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice" (proc(5)); guest time is counted
  // in user already.
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: ticks.reduce((a, b) => a + b, 0), steal: ticks[7] ?? 0 };
}

/** The machine's load averages over 1, 5 and 15 minutes, as /proc/loadavg writes them: how busy a run was. */
export function loadAverage(): string[] {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3);
}

/** User + system CPU time so far of a process and its descendants, in ms. */
export function treeCpuMs(pid: number, table = processTable()): number {
  let total = 0;
  for (const p of processTree(pid, table)) total += table.get(p)?.cpuMs ?? 0;
  return total;
}

/**
 * The part of treeCpuMs(pid) spent in SQLite query processes (src/storage/query-process.ts and
 * shared-query-processes.ts: node programs given on the command line that load better-sqlite3), in ms.
 */
export function queryProcessCpuMs(pid: number, table = processTable()): number {
  let total = 0;
  for (const p of processTree(pid, table)) {
    let command = '';
    try {
      command = readFileSync(`/proc/${p}/cmdline`, 'latin1');
    } catch {
      continue;
    }
    if (command.includes('\0-e\0') && command.includes('better-sqlite3')) total += table.get(p)?.cpuMs ?? 0;
  }
  return total;
}

/**
 * CPU time so far of `pid` and its descendants, all their threads, in ns, from the scheduler's own accounting
 * (/proc/PID/task/TID/schedstat): fine enough to weigh a single request, where the tick counts of stat (10 ms)
 * are not.
 */
export function treeCpuNs(pid: number): number {
  let total = 0;
  for (const p of processTree(pid)) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        total += Number(readFileSync(`/proc/${p}/task/${task}/schedstat`, 'latin1').split(' ')[0]);
      } catch {
        // Ended while read.
      }
    }
  }
  return total;
}
