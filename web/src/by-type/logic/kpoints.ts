/** KpointsData as people read it: a mesh and its offset, or a list of points with weights and labels. Pure. */

export interface KpointsMesh {
  mesh: [number, number, number];
  offset: [number, number, number];
  count: number;
}

export function kpointsMesh(attributes: Record<string, unknown>): KpointsMesh | undefined {
  const { mesh, offset } = attributes;
  if (!Array.isArray(mesh) || mesh.length !== 3) return undefined;
  const m = mesh.map(Number) as [number, number, number];
  const o = (Array.isArray(offset) && offset.length === 3 ? offset.map(Number) : [0, 0, 0]) as [
    number,
    number,
    number,
  ];
  return { mesh: m, offset: o, count: m[0] * m[1] * m[2] };
}

/** "8 × 8 × 8, offset (0.5, 0.5, 0.5)". */
export function meshText(m: KpointsMesh): string {
  return `${m.mesh.join(' × ')}, offset (${m.offset.join(', ')})`;
}

/**
 * The label of each point index, from the attributes `labels` and `label_numbers` (AiiDA stores them as two
 * parallel lists); points without a label get none. Out-of-range or malformed entries are skipped.
 */
export function kpointLabels(attributes: Record<string, unknown>, count: number): Map<number, string> {
  const out = new Map<number, string>();
  const { labels, label_numbers: numbers } = attributes;
  if (!Array.isArray(labels) || !Array.isArray(numbers)) return out;
  numbers.forEach((n, i) => {
    const label = labels[i];
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n < count && typeof label === 'string') {
      const prev = out.get(n);
      out.set(n, prev && prev !== label ? `${prev}|${label}` : label);
    }
  });
  return out;
}
