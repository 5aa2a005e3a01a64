/**
 * The Fermi energy of a band structure, where the calculation that created it says one: a `fermi_energy` among
 * the plain values of a dictionary that process created (Quantum ESPRESSO's `output_parameters` has it, in eV).
 * Pure: the querybuilder request, and its answer read.
 */

/** The querybuilder request: the dictionaries created by the creator of band structure `id`, their Fermi energy. */
export function fermiQuery(id: number): unknown {
  return {
    path: [
      { entity_type: 'data.core.array.bands.BandsData.', orm_base: 'node', tag: 'b', subclassing: true },
      {
        entity_type: 'process.ProcessNode.',
        orm_base: 'node',
        tag: 'c',
        subclassing: true,
        with_outgoing: 'b',
      },
      { entity_type: 'data.core.dict.Dict.', orm_base: 'node', tag: 'd', with_incoming: 'c' },
    ],
    filters: { b: { id: { '==': id } } },
    project: { d: ['attributes.fermi_energy', 'attributes.fermi_energy_units'] },
    limit: 20,
  };
}

export interface Fermi {
  energy: number;
  units?: string;
}

/** The first finite Fermi energy of the answer, or undefined when no dictionary gives one. */
export function fermiOf(answer: { d?: Record<string, unknown>[] } | undefined): Fermi | undefined {
  for (const row of answer?.d ?? []) {
    const energy = row['attributes.fermi_energy'];
    if (typeof energy !== 'number' || !Number.isFinite(energy)) continue;
    const units = row['attributes.fermi_energy_units'];
    return { energy, units: typeof units === 'string' ? units : undefined };
  }
  return undefined;
}
