/**
 * Links and group members into the copy: links of 0.4 and later in one SQL statement, older ones record by
 * record through their version steps (steps-early.ts); what the archive lacks is left out and said.
 */
import { inserter, type Copy } from './sqlite-copy.js';
import type { Stage } from './staging.js';
import { linkTypeAt03, linkTypeAt04 } from './steps-early.js';
import { linkLabel } from './steps.js';

type Rec = Record<string, unknown>;

export function writeLinks(stage: Stage, copy: Copy, minor: number): string[] {
  const insert = inserter(copy, 'db_dblink', ['id', 'input_id', 'output_id', 'label', 'type']);
  const node = copy.prepare('SELECT id, node_type FROM db_dbnode WHERE uuid = ?');
  const oldType = stage.prepare('SELECT type FROM node WHERE uuid = ?').pluck();
  let id = 0;
  let dangling = 0;
  let dropped = 0;
  let example = '';
  for (const { rec } of stage.prepare('SELECT rec FROM link ORDER BY seq').iterate() as Iterable<{
    rec: string;
  }>) {
    const link = JSON.parse(rec) as Rec;
    const input = node.get(String(link.input ?? '')) as { id: number; node_type: string } | undefined;
    const output = node.get(String(link.output ?? '')) as { id: number; node_type: string } | undefined;
    if (!input || !output) {
      dangling++;
      if (!example) example = `${String(link.input)} -> ${String(link.output)}`;
      continue;
    }
    let type: string | undefined = typeof link.type === 'string' ? link.type : '';
    if (minor < 3) {
      type = linkTypeAt03(
        (oldType.get(String(link.input)) as string | null) ?? null,
        (oldType.get(String(link.output)) as string | null) ?? null,
      );
    }
    if (minor < 4) {
      type = linkTypeAt04(type, (oldType.get(String(link.input)) as string | null) ?? null, output.node_type);
      if (type === undefined) {
        dropped++;
        continue;
      }
    }
    insert({ id: ++id, input_id: input.id, output_id: output.id, label: linkLabel(minor, link.label), type });
  }
  const warnings: string[] = [];
  if (dangling > 0) {
    warnings.push(
      `${dangling} link(s) left out: they join nodes the archive does not hold (${example}); the rest is served`,
    );
  }
  if (dropped > 0) {
    warnings.push(
      `${dropped} link(s) left out as aiida-core 1.x's migration deletes them (calls and returns out of calculations, creations out of workflows)`,
    );
  }
  return warnings;
}

/**
 * Links of 0.4 and later in one statement, the staged file attached: ids 1..n in data.json's order, as
 * aiida-core numbers them; links whose ends the archive lacks are left out and counted.
 */
export function copyLinks(copy: Copy, minor: number): string[] {
  {
    const field = (name: string) =>
      `CASE json_type(l.rec, '$.${name}') WHEN 'text' THEN json_extract(l.rec, '$.${name}') ELSE '' END`;
    const label =
      minor < 8
        ? `CASE ${field('label')} WHEN '_return' THEN 'result' ELSE ${field('label')} END`
        : field('label');
    // Each end's node id, found with the links sorted by that end's uuid: the lookups then walk the uuid index
    // in order, where in data.json's order they reached its pages at random (11 s at 10^6 nodes). In temporary
    // tables of the copy's connection: written into the staged file, they would lock it against the stage's
    // own connection once the page cache spills.
    for (const end of ['input', 'output']) {
      copy.exec(`
        CREATE TEMP TABLE link_${end} (seq INTEGER PRIMARY KEY, id INTEGER NOT NULL);
        INSERT INTO temp.link_${end} (seq, id)
        SELECT e.seq, n.id
        FROM (SELECT seq, json_extract(rec, '$.${end}') AS uuid FROM stage.link ORDER BY uuid) e
        CROSS JOIN db_dbnode n ON n.uuid = e.uuid
        ORDER BY e.seq;`);
    }
    const inserted = copy
      .prepare(
        `INSERT INTO db_dblink (id, input_id, output_id, label, type)
         SELECT row_number() OVER (ORDER BY l.seq), i.id, o.id, ${label}, ${field('type')}
         FROM stage.link l
         JOIN temp.link_input i ON i.seq = l.seq
         JOIN temp.link_output o ON o.seq = l.seq
         ORDER BY l.seq`,
      )
      .run().changes;
    copy.exec('DROP TABLE temp.link_input; DROP TABLE temp.link_output;');
    const all = copy.prepare('SELECT count(*) FROM stage.link').pluck().get() as number;
    if (inserted === all) return [];
    const example = copy
      .prepare(
        `SELECT json_extract(rec, '$.input') || ' -> ' || json_extract(rec, '$.output') FROM stage.link l
         WHERE NOT EXISTS (SELECT 1 FROM db_dbnode WHERE uuid = json_extract(l.rec, '$.input'))
            OR NOT EXISTS (SELECT 1 FROM db_dbnode WHERE uuid = json_extract(l.rec, '$.output'))
         ORDER BY seq LIMIT 1`,
      )
      .pluck()
      .get() as string | null;
    return [
      `${all - inserted} link(s) left out: they join nodes the archive does not hold (${example ?? 'a link without both ends'}); the rest is served`,
    ];
  }
}

export function writeMembers(stage: Stage, copy: Copy): string[] {
  const insert = inserter(copy, 'db_dbgroup_dbnodes', ['dbnode_id', 'dbgroup_id'], true);
  const group = copy.prepare('SELECT id FROM db_dbgroup WHERE uuid = ?').pluck();
  const node = copy.prepare('SELECT id FROM db_dbnode WHERE uuid = ?').pluck();
  let unknown = 0;
  let unknownGroups = 0;
  const groups = new Set<string>();
  for (const m of stage.prepare('SELECT grp, node FROM member ORDER BY seq').iterate() as Iterable<{
    grp: string;
    node: string | null;
  }>) {
    const g = group.get(m.grp) as number | undefined;
    if (g === undefined) {
      unknownGroups++;
      continue;
    }
    const n = m.node === null ? undefined : (node.get(m.node) as number | undefined);
    if (n === undefined) {
      unknown++;
      groups.add(m.grp);
      continue;
    }
    insert({ dbnode_id: n, dbgroup_id: g });
  }
  const warnings: string[] = [];
  if (unknown > 0) {
    warnings.push(
      `${unknown} group member(s) dropped: the archive does not hold them (groups ${[...groups].slice(0, 3).join(', ')})`,
    );
  }
  if (unknownGroups > 0) {
    warnings.push(`${unknownGroups} group member(s) dropped: their group is not in the archive`);
  }
  return warnings;
}
