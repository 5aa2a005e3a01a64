/**
 * The symbols of TrajectoryData before export version 0.4: AiiDA 0.x kept them as an array, `symbols.npy` in
 * the node's repository, and aiida-core 1.x's migration to 0.4 (`migration_trajectory_symbols_to_attribute`)
 * read that file into a `symbols` attribute (dropping `array|symbols`) and deleted it. Done here the same way.
 */

/** The type string TrajectoryData had in export versions 0.1 to 0.3. */
export const OLD_TRAJECTORY_TYPE = 'data.array.trajectory.TrajectoryData.';

/**
 * The strings of a one-dimensional .npy array of numpy's `U` (UTF-32) or `S` (bytes) dtype, as `tolist()` gives
 * them; undefined for any other array (the file then stays in the repository, as it was).
 */
export function npySymbols(buffer: Buffer): string[] | undefined {
  if (buffer.length < 10 || buffer.subarray(0, 6).toString('latin1') !== '\x93NUMPY') return undefined;
  const major = buffer[6];
  const start = major === 1 ? 10 : 12;
  if (buffer.length < start) return undefined;
  const headerLength = major === 1 ? buffer.readUInt16LE(8) : buffer.readUInt32LE(8);
  const header = buffer.subarray(start, start + headerLength).toString('latin1');
  const dtype = /'descr':\s*'([<>|=]?)([US])(\d+)'/.exec(header);
  const shape = /'shape':\s*\((\d+),?\s*\)/.exec(header);
  if (!dtype || !shape || /'fortran_order':\s*True/.test(header)) return undefined;
  const [, order, kind, width] = dtype as unknown as [string, string, 'U' | 'S', string];
  const size = Number(width) * (kind === 'U' ? 4 : 1);
  const count = Number(shape[1]);
  const body = buffer.subarray(start + headerLength);
  if (!Number.isSafeInteger(count * size) || body.length < count * size) return undefined;
  const symbols: string[] = [];
  for (let i = 0; i < count; i++) {
    const item = body.subarray(i * size, (i + 1) * size);
    if (kind === 'S') {
      const end = item.indexOf(0);
      symbols.push(item.subarray(0, end === -1 ? item.length : end).toString('utf8'));
      continue;
    }
    let text = '';
    for (let at = 0; at < item.length; at += 4) {
      const code = order === '>' ? item.readUInt32BE(at) : item.readUInt32LE(at);
      if (code === 0) break;
      if (code > 0x10ffff) return undefined;
      text += String.fromCodePoint(code);
    }
    symbols.push(text);
  }
  return symbols;
}

type Rec = Record<string, unknown>;

/** The attributes (and their datetime conversions) of a trajectory given its symbols, as the migration sets them. */
export function withSymbols(attrs: Rec, conv: Rec | undefined, symbols: string[]): void {
  delete attrs['array|symbols'];
  attrs.symbols = symbols;
  if (conv) {
    delete conv['array|symbols'];
    conv.symbols = symbols.map(() => null);
  }
}
