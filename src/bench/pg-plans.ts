/**
 * `--plans FILE`: PostgreSQL's own account of every statement the request mix runs, `EXPLAIN (ANALYZE,
 * BUFFERS)` of each kind's statements as the server sent them (its first variant), written to FILE in
 * Markdown, with the statements that read all the nodes for an answer of one page picked out.
 */
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import type { DataAccess } from './floors.js';

export interface PlanSummary {
  kind: string;
  statement: number;
  ms: number;
  /** Rows the plan's nodes read from db_dbnode in all (index and heap), and what share of the table that is. */
  nodeRowsRead: number;
  sharesOfNodes: number;
  seqScanOfNodes: boolean;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows read from db_dbnode by scans in a plan, and whether one of them was a sequential scan. */
function nodeReads(plan: PlanNode): { rows: number; seq: boolean } {
  let rows = 0;
  let seq = false;
  const walk = (n: PlanNode) => {
    if (n['Relation Name'] === 'db_dbnode') {
      const loops = n['Actual Loops'] ?? 1;
      rows += ((n['Actual Rows'] ?? 0) + (n['Rows Removed by Filter'] ?? 0)) * loops;
      if (n['Node Type'].includes('Seq Scan')) seq = true;
    }
    for (const child of n.Plans ?? []) walk(child);
  };
  walk(plan);
  return { rows, seq };
}

/**
 * Explain each kind's statements on the database at `url`, write them to `file` and answer the summary,
 * slowest first. A statement that reads more than a tenth of the nodes is one to look at: no page of an
 * answer needs that many.
 */
export async function explainMix(
  url: string,
  accesses: Map<string, DataAccess[]>,
  file: string,
): Promise<PlanSummary[]> {
  const client = new pg.Client({ connectionString: url, options: '-c TimeZone=UTC' });
  await client.connect();
  const summaries: PlanSummary[] = [];
  const sections: string[] = [];
  try {
    const nodes = Number(
      (await client.query('SELECT count(*) AS n FROM db_dbnode')).rows[0].n as string | number,
    );
    for (const [kind, variants] of accesses) {
      const statements = variants[0]?.statements ?? [];
      sections.push(`## ${kind}\n`);
      for (const [i, { statement }] of statements.entries()) {
        const json = await client.query({
          text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.sql}`,
          values: statement.params as unknown[],
        });
        const top = (json.rows[0]['QUERY PLAN'] as { Plan: PlanNode; 'Execution Time': number }[])[0]!;
        const text = await client.query({
          text: `EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`,
          values: statement.params as unknown[],
        });
        const reads = nodeReads(top.Plan);
        const summary: PlanSummary = {
          kind,
          statement: i + 1,
          ms: Number(top['Execution Time'].toFixed(3)),
          nodeRowsRead: reads.rows,
          sharesOfNodes: nodes > 0 ? Number((reads.rows / nodes).toFixed(3)) : 0,
          seqScanOfNodes: reads.seq,
        };
        summaries.push(summary);
        sections.push(
          `### statement ${i + 1}: ${summary.ms} ms, reads ${reads.rows} rows of db_dbnode ` +
            `(${(100 * summary.sharesOfNodes).toFixed(1)} % of ${nodes})\n`,
          '```sql',
          statement.sql,
          '```',
          `parameters: ${JSON.stringify(statement.params)}\n`,
          '```',
          ...text.rows.map((r) => String(r['QUERY PLAN'])),
          '```\n',
        );
      }
    }
  } finally {
    await client.end();
  }
  summaries.sort((a, b) => b.ms - a.ms);
  const table = [
    '| kind | statement | ms | rows of db_dbnode read | share of nodes | seq scan of nodes |',
    '| --- | --- | --- | --- | --- | --- |',
    ...summaries.map(
      (s) =>
        `| ${s.kind} | ${s.statement} | ${s.ms} | ${s.nodeRowsRead} | ${s.sharesOfNodes} | ${s.seqScanOfNodes ? 'yes' : ''} |`,
    ),
  ];
  writeFileSync(file, ['# Plans of the request mix\n', ...table, '', ...sections].join('\n'));
  return summaries;
}
