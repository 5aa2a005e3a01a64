/**
 * A serving process killed under load: every request in flight is answered or fails fast (a reset), none is
 * left hanging, and the supervisor brings the number of processes back while the other one goes on serving.
 */
import { existsSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { smallArchive } from './helpers.js';
import { childrenOf, cli, serveProcesses, until } from './support/serving.js';

/** A request without an answer or an error this long counts as hung. */
const HANG_MS = 10_000;
const LOOPS_PER_KIND = 6;

type Outcome = 'answered' | 'failed' | 'hung' | 'refused';

function request(url: string, agent: Agent | false): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = get(url, { agent }, (res) => {
      res.on('error', () => settle('failed'));
      res.on('end', () => settle(res.statusCode === 200 ? 'answered' : 'refused'));
      res.resume();
    });
    req.on('error', () => settle('failed'));
    const timer = setTimeout(() => {
      settle('hung');
      req.destroy();
    }, HANG_MS);
  });
}

class Tally {
  answered = 0;
  failed = 0;
  hung = 0;
  refused = 0;
  get requests() {
    return this.answered + this.failed + this.hung + this.refused;
  }
  add(outcome: Outcome) {
    this[outcome] += 1;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!existsSync(cli) || process.platform !== 'linux')(
  'a serving process killed under load',
  () => {
    it(
      'leaves no request hanging, and the supervisor restores the processes',
      { timeout: 90_000 },
      async () => {
        const archive = await smallArchive(200, 5);
        const { server, port, stderr } = await serveProcesses(archive, 2);
        const base = `http://127.0.0.1:${port}/api/v4`;
        const urls = ['/nodes/?limit=5', '/users/', '/nodes/page/2/?perpage=10', '/groups/', '/server/'];
        const keepAlive = new Agent({ keepAlive: true, maxSockets: LOOPS_PER_KIND });
        // Outcomes are counted when they arrive: a request sent before the kill and reset by it counts after.
        const before = new Tally();
        const after = new Tally();
        let tally = before;
        let running = true;
        try {
          // Half the loops reuse connections (a killed process takes its own along), half open one per request
          // (the supervisor hands each to a process, possibly the one being killed).
          const loops = [keepAlive, false as const].flatMap((agent) =>
            Array.from({ length: LOOPS_PER_KIND }, async (_, i) => {
              for (let n = i; running; n++) {
                const outcome = await request(`${base}${urls[n % urls.length]}`, agent);
                tally.add(outcome);
              }
            }),
          );

          await sleep(1_500);
          const serving = childrenOf(server.pid!);
          expect(serving).toHaveLength(2);
          process.kill(serving[0]!, 'SIGKILL');
          tally = after;
          const replaced = await until('a replacement', () => {
            const now = childrenOf(server.pid!);
            return now.length === 2 && !now.includes(serving[0]!) ? now : undefined;
          });
          const answeredWhenReplaced = after.answered;
          await sleep(2_000);
          running = false;
          await Promise.all(loops);

          const total = new Tally();
          for (const t of [before, after]) {
            for (const k of ['answered', 'failed', 'hung', 'refused'] as const) total[k] += t[k];
          }
          console.log(
            `kill under load: ${total.requests} requests, ${total.answered} answered, ${total.failed} failed ` +
              `(reset or error), ${total.hung} hung (no answer in ${HANG_MS / 1000} s), ${total.refused} not 200; ` +
              `counted after the kill: ${after.requests} requests, ${after.answered} answered, ${after.failed} failed`,
          );
          expect(total.hung).toBe(0);
          expect(total.refused).toBe(0);
          expect(before.failed).toBe(0);
          // What was in flight when the process died, and connections to it reused before the reset was seen.
          expect(after.failed).toBeLessThan(after.requests / 20);
          expect(replaced).toContain(serving[1]);
          expect(after.answered).toBeGreaterThan(answeredWhenReplaced);
          expect(stderr()).toMatch(
            new RegExp(`serving process ${serving[0]} died \\(SIGKILL\\); starting another`),
          );
        } finally {
          running = false;
          keepAlive.destroy();
          const exit = new Promise((resolve) => server.once('exit', resolve));
          server.kill('SIGTERM');
          await Promise.race([exit, sleep(5_000)]);
          server.kill('SIGKILL');
        }
      },
    );
  },
);
