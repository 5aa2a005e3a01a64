/**
 * CIF compared by content (README rule: "CIF ... equivalent in content"): the same data blocks, the same tags,
 * the same values, numbers equal to 1e-9. The reference lays CIF out with PyCifRW's column packing; Quarry
 * writes plain CIF.
 */

type Block = { name: string; items: Map<string, string[]> };

function tokens(line: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? (m[3] as string));
  return out;
}

export function parseCif(text: string): Block[] {
  const blocks: Block[] = [];
  let block: Block | undefined;
  let loopTags: string[] | undefined;
  let loopValues: string[] = [];
  let pendingTag: string | undefined;
  const closeLoop = () => {
    if (!loopTags || !block) return;
    loopTags.forEach((tag, i) =>
      block!.items.set(
        tag,
        loopValues.filter((_, j) => j % loopTags!.length === i),
      ),
    );
    loopTags = undefined;
    loopValues = [];
  };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^\s*#.*$/, '');
    for (const token of tokens(line)) {
      if (token.startsWith('data_')) {
        closeLoop();
        block = { name: token.slice(5), items: new Map() };
        blocks.push(block);
      } else if (token === 'loop_') {
        closeLoop();
        loopTags = [];
      } else if (token.startsWith('_') && loopTags && loopValues.length === 0) {
        loopTags.push(token);
      } else if (token.startsWith('_')) {
        closeLoop();
        pendingTag = token;
      } else if (pendingTag) {
        block?.items.set(pendingTag, [token]);
        pendingTag = undefined;
      } else if (loopTags) {
        loopValues.push(token);
      }
    }
  }
  closeLoop();
  return blocks;
}

const sameValue = (a: string, b: string) => {
  const x = Number(a);
  const y = Number(b);
  if (Number.isFinite(x) && Number.isFinite(y) && a.trim() !== '' && b.trim() !== '') {
    return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  }
  return a === b;
};

/** Whether the text looks like a CIF file (a data block with tags). */
export function isCif(text: string): boolean {
  return /^data_/m.test(text) && /^_cell_length_a|^\s*_atom_site_/m.test(text);
}

/** The first difference in content between two CIF texts, or undefined when they agree. */
export function cifDifference(expected: string, actual: string): string | undefined {
  const a = parseCif(expected);
  const b = parseCif(actual);
  if (a.length !== b.length) return `CIF has ${b.length} data blocks, expected ${a.length}`;
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i] as Block, b[i] as Block];
    if (x.name !== y.name) return `CIF block ${i} is data_${y.name}, expected data_${x.name}`;
    const tags = new Set([...x.items.keys(), ...y.items.keys()]);
    for (const tag of tags) {
      const [u, v] = [x.items.get(tag), y.items.get(tag)];
      if (!u || !v) return `CIF block ${i}: ${tag} ${u ? 'missing' : 'unexpected'}`;
      if (u.length !== v.length) return `CIF block ${i}: ${tag} has ${v.length} values, expected ${u.length}`;
      const j = u.findIndex((value, k) => !sameValue(value, v[k] as string));
      if (j >= 0) return `CIF block ${i}: ${tag}[${j}] is ${v[j]}, expected ${u[j]}`;
    }
  }
  return undefined;
}
