import { describe, expect, it } from 'vitest';
import { machineTicks } from '../src/bench/process-table.js';

describe('machineTicks', () => {
  it("reads the machine's CPU time and the share stolen by the host, growing as time passes", async () => {
    const before = machineTicks();
    expect(before.total).toBeGreaterThan(0);
    expect(before.steal).toBeGreaterThanOrEqual(0);
    expect(before.steal).toBeLessThanOrEqual(before.total);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = machineTicks();
    expect(after.total).toBeGreaterThan(before.total);
    expect(after.steal).toBeGreaterThanOrEqual(before.steal);
  });
});
