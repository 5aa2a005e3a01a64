/**
 * Every export format of every data type the generator writes, and every node's derived properties, on a
 * generated archive: each answers 200 with content (no 4xx/5xx for valid data of any shape the generator
 * makes: cells or none, spins, meshes, labels, trajectories, pseudopotentials).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOn, smallArchive } from './helpers.js';

describe('exports of generated data', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    served = await appOn(await smallArchive(1500, 3));
  }, 60_000);
  afterAll(async () => served?.close());

  it('answers every listed format of up to three nodes of each type', async () => {
    const { app } = served;
    const formats = (await app.inject('/api/v4/nodes/download_formats/')).json().data as Record<
      string,
      string[]
    >;
    const failures: string[] = [];
    let answered = 0;
    for (const [fullType, names] of Object.entries(formats)) {
      const nodeType = fullType.replace(/\|$/, '');
      const list = await app.inject(`/api/v4/nodes/?node_type="${nodeType}"&limit=3`);
      for (const node of list.json().data.nodes as { uuid: string }[]) {
        for (const format of names) {
          const r = await app.inject(`/api/v4/nodes/${node.uuid}/download/?download_format=${format}`);
          answered++;
          if (r.statusCode !== 200 || r.rawPayload.length === 0) {
            failures.push(`${nodeType} ${format}: ${r.statusCode} ${r.body.slice(0, 120)}`);
          }
        }
        const derived = await app.inject(`/api/v4/nodes/${node.uuid}/contents/derived_properties/`);
        if (derived.statusCode !== 200)
          failures.push(`${nodeType} derived: ${derived.statusCode} ${derived.body.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(20);
  }, 120_000);
});
