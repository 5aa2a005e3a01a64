/**
 * UpfData's JSON export: the pseudopotential as the `upf_to_json` package (which aiida calls) reads it, from
 * UPF v1 (tagged text) or UPF v2 (XML). Keys, their order, units (potentials and D_ion halved to Hartree)
 * and Python's number types are those of that package, so the JSON is byte-identical to the reference's.
 */
import { XMLParser } from 'fast-xml-parser';
import { PyFloat, pyJson } from './python-text.js';

export class UpfFormatError extends Error {}

type Dict = Record<string, unknown>;

const float = (text: string): PyFloat => {
  const value = Number(text);
  if (text.trim() === '' || Number.isNaN(value)) throw new UpfFormatError(`"${text}" is not a number`);
  return new PyFloat(value);
};
const int = (text: string | undefined): number => {
  const value = Number(text);
  if (!Number.isInteger(value)) throw new UpfFormatError(`"${text}" is not an integer`);
  return value;
};
/** Most projectors or wave functions a file may say it has (real ones have a few dozen at most). */
const MOST_FUNCTIONS = 1000;
/** A count of projectors or wave functions: the D_ion matrix is made of the projectors' count squared. */
const functions = (text: string | undefined): number => {
  const value = int(text);
  if (value < 0 || value > MOST_FUNCTIONS)
    throw new UpfFormatError(`${value} projectors or wave functions: from 0 to ${MOST_FUNCTIONS} are read`);
  return value;
};
const half = (x: PyFloat) => new PyFloat(x.value / 2);
const words = (text: unknown) =>
  String(text ?? '')
    .split(/\s+/)
    .filter(Boolean);

export function upfToJson(text: string, filename: string): string {
  const [first = '', second = ''] = text.split('\n');
  let dict: Dict;
  if (first.includes('<PP_INFO>')) dict = upf1(text);
  // The second line too: files may open with an <?xml ...?> declaration.
  else if (first.includes('UPF version') || second.includes('UPF version')) dict = upf2(text);
  // The package answers None for anything else, and aiida writes it as JSON null.
  else return 'null';
  ((dict.pseudo_potential as Dict).header as Dict).original_upf_file = filename;
  return pyJson(dict);
}

/** A reader over the lines of a UPF v1 file, as the package reads it (a fresh one per section). */
class Lines {
  private at = 0;
  constructor(private readonly lines: string[]) {}

  next(): string {
    if (this.at >= this.lines.length) throw new UpfFormatError('the file ends too early');
    return this.lines[this.at++] as string;
  }

  until(tag: string) {
    while (!this.next().includes(tag));
  }

  /** Whitespace-separated numbers over as many lines as it takes to read `count` of them. */
  numbers(count: number): PyFloat[] {
    const out: PyFloat[] = [];
    while (out.length < count) for (const word of words(this.next())) out.push(float(word));
    if (out.length !== count) throw new UpfFormatError(`expected ${count} values, a line holds more`);
    return out;
  }
}

function upf1(text: string): Dict {
  const lines = text.split('\n');
  const from = (tag: string) => {
    const reader = new Lines(lines);
    reader.until(tag);
    return reader;
  };
  const h = from('<PP_HEADER>');
  h.next();
  const header: Dict = {};
  header.element = words(h.next())[0];
  header.pseudo_type = words(h.next())[0];
  const cc = words(h.next())[0] ?? '';
  header.core_correction = cc[0] === 'T' || cc[0] === 't' ? true : 0;
  h.next();
  header.z_valence = float(words(h.next())[0] ?? '');
  h.next();
  h.next();
  header.l_max = int(words(h.next())[0]);
  header.mesh_size = int(words(h.next())[0]);
  const counts = words(h.next());
  header.number_of_wfc = functions(counts[0]);
  header.number_of_proj = functions(counts[1]);
  const mesh = header.mesh_size as number;
  const out: Dict = { header };

  out.radial_grid = from('<PP_R>').numbers(mesh);
  if (header.core_correction === true) out.core_charge_density = from('<PP_NLCC>').numbers(mesh);
  out.local_potential = from('<PP_LOCAL>').numbers(mesh).map(half);
  Object.assign(out, upf1NonLocal(from('<PP_NONLOCAL>'), header, out.radial_grid as PyFloat[]));

  const w = from('<PP_PSWFC>');
  out.atomic_wave_functions = Array.from({ length: header.number_of_wfc as number }, () => {
    const [label, l, occupation] = words(w.next());
    return {
      label,
      angular_momentum: int(l),
      occupation: float(occupation ?? ''),
      radial_function: w.numbers(mesh),
    };
  });
  out.total_charge_density = from('<PP_RHOATOM>').numbers(mesh);
  return { pseudo_potential: out };
}

function upf1NonLocal(r: Lines, header: Dict, grid: PyFloat[]): Dict {
  const nb = header.number_of_proj as number;
  const mesh = header.mesh_size as number;
  const betas: Dict[] = [];
  for (let i = 0; i < nb; i++) {
    r.until('<PP_BETA>');
    const l = int(words(r.next())[1]);
    const points = int(r.next().trim());
    betas.push({
      label: '',
      angular_momentum: l,
      radial_function: r.numbers(points),
      cutoff_radius: new PyFloat(0),
      ultrasoft_cutoff_radius: new PyFloat(0),
    });
  }
  const dij: (number | PyFloat)[] = new Array<number | PyFloat>(nb * nb).fill(0);
  r.until('<PP_DIJ>');
  const nd = int(words(r.next())[0]);
  for (let k = 0; k < nd; k++) {
    const [i, j, value] = words(r.next());
    const [a, b] = [int(i) - 1, int(j) - 1];
    dij[a * nb + b] = half(float(value ?? ''));
    dij[b * nb + a] = half(float(value ?? ''));
  }
  const out: Dict = { beta_projectors: betas, D_ion: dij };
  if (header.pseudo_type !== 'US') return out;

  const augmentation: Dict[] = [];
  r.until('<PP_QIJ>');
  const nq = int(words(r.next())[0]);
  const lMax = header.l_max as number;
  const rInner: number[] = [];
  if (nq !== 0) {
    r.until('<PP_RINNER>');
    for (let k = 0; k < 2 * lMax + 1; k++) rInner.push(float(words(r.next())[1] ?? '').value);
    r.until('</PP_RINNER>');
  }
  for (let i = 0; i < nb; i++) {
    const li = betas[i]?.angular_momentum as number;
    for (let j = i; j < nb; j++) {
      const lj = betas[j]?.angular_momentum as number;
      const [si, sj, sl] = words(r.next());
      if (int(sl) !== lj || int(si) !== i + 1 || int(sj) !== j + 1) {
        throw new UpfFormatError('inconsistent indices or angular momentum in PP_QIJ');
      }
      r.next();
      const qij = r.numbers(mesh);
      if (nq === 0) continue;
      r.until('<PP_QFCOEF>');
      const coefs = r.numbers(nq * (2 * lMax + 1)).map((c) => c.value);
      r.until('</PP_QFCOEF>');
      for (let l = Math.abs(li - lj); l <= li + lj; l++) {
        if ((li + lj + l) % 2 !== 0) continue;
        // Inside r_inner, Q_ij(r) is rebuilt from its Taylor coefficients, as the package does.
        const fixed = qij.map((q, ir) => {
          const x = (grid[ir] as PyFloat).value;
          if (!(x < (rInner[l] as number))) return q;
          const x2 = x * x;
          let value = coefs[l * nq] as number;
          for (let n = 1; n < nq; n++) value += (coefs[n + l * nq] as number) * powInt(x2, n);
          return new PyFloat(value * powInt(x, l + 2));
        });
        augmentation.push({ radial_function: fixed, i, j, angular_momentum: l });
      }
    }
  }
  out.augmentation = augmentation;
  return out;
}

/** a * b as an unevaluated sum hi + lo (Dekker's product; JavaScript has no fused multiply-add). */
function twoProduct(a: number, b: number): [number, number] {
  const hi = a * b;
  const split = (v: number): [number, number] => {
    const t = 134217729 * v; // 2^27 + 1
    const h = t - (t - v);
    return [h, v - h];
  };
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return [hi, ah * bh - hi + ah * bl + al * bh + al * bl];
}

/**
 * x ** n for a small whole n, carried in double-double precision and rounded once. The reference gets these
 * from the platform's C pow, whose last bits vary between platforms; the correctly rounded power stays
 * closest to every one of them (V8's pow drifts further, and the Taylor sums amplify it).
 */
function powInt(x: number, n: number): number {
  let [hi, lo] = [1, 0];
  for (let k = 0; k < n; k++) {
    const [p, e] = twoProduct(hi, x);
    const s = p + (e + lo * x);
    lo = p - s + (e + lo * x);
    hi = s;
  }
  return hi + lo;
}

const truthy = (v: unknown) => ['yes', 'true', 't', '1'].includes(String(v).toLowerCase());

function upf2(text: string): Dict {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
  });
  let root: Dict;
  try {
    root = (parser.parse(text.replaceAll('&', '')) as Dict).UPF as Dict;
  } catch (error) {
    throw new UpfFormatError(`the UPF v2 file is not well-formed XML: ${(error as Error).message}`);
  }
  if (!root) throw new UpfFormatError('the file has no <UPF> element');
  const node = (path: string): Dict => {
    let at: unknown = root;
    for (const name of path.split('/')) {
      at = (at as Dict | undefined)?.[name];
      if (Array.isArray(at)) at = at[0];
    }
    if (at === undefined) throw new UpfFormatError(`the file has no ${path}`);
    return typeof at === 'object' && at !== null ? (at as Dict) : { '#text': at };
  };
  const values = (path: string) => words(node(path)['#text']).map(float);

  const h = node('PP_HEADER');
  const header: Dict = {
    number_of_proj: functions(h.number_of_proj as string),
    core_correction: truthy(h.core_correction),
    element: String(h.element).trim(),
    pseudo_type: h.pseudo_type,
    z_valence: float(String(h.z_valence)),
    mesh_size: int(h.mesh_size as string),
    is_ultrasoft: truthy(h.is_ultrasoft),
    number_of_wfc: functions(h.number_of_wfc as string),
    spin_orbit: truthy(h.has_so),
  };
  const out: Dict = { header };
  out.radial_grid = values('PP_MESH/PP_R');
  header.mesh_size = (out.radial_grid as unknown[]).length;
  if (header.core_correction) out.core_charge_density = values('PP_NLCC');
  out.local_potential = values('PP_LOCAL').map(half);

  const nb = header.number_of_proj as number;
  const so = header.spin_orbit as boolean;
  out.beta_projectors = Array.from({ length: nb }, (_, i) => {
    const beta = node(`PP_NONLOCAL/PP_BETA.${i + 1}`);
    const entry: Dict = {
      radial_function: words(beta['#text'])
        .map(float)
        .slice(0, int(beta.cutoff_radius_index as string)),
    };
    if ('label' in beta) entry.label = beta.label;
    entry.angular_momentum = int(beta.angular_momentum as string);
    if (so) entry.total_angular_momentum = float(String(node(`PP_SPIN_ORB/PP_RELBETA.${i + 1}`).jjj));
    return entry;
  });
  out.D_ion = values('PP_NONLOCAL/PP_DIJ').map(half);
  if (header.is_ultrasoft) out.augmentation = upf2Augmentation(node, values, out.beta_projectors as Dict[]);
  if (header.pseudo_type === 'PAW') out.paw_data = upf2Paw(node, values, header);
  out.atomic_wave_functions = Array.from({ length: header.number_of_wfc as number }, (_, i) => {
    const chi = node(`PP_PSWFC/PP_CHI.${i + 1}`);
    const wfc: Dict = {
      radial_function: words(chi['#text']).map(float),
      angular_momentum: int(chi.l as string),
    };
    if ('label' in chi) wfc.label = chi.label;
    wfc.occupation = float(String(chi.occupation));
    if (so) wfc.total_angular_momentum = float(String(node(`PP_SPIN_ORB/PP_RELWFC.${i + 1}`).jchi));
    return wfc;
  });
  if (so) {
    (out.beta_projectors as Dict[]).forEach((beta, i) => {
      const rel = node(`PP_SPIN_ORB/PP_RELBETA.${i + 1}`);
      beta.angular_momentum = float(String(rel.lll));
      beta.total_angular_momentum = float(String(rel.jjj));
    });
  }
  out.total_charge_density = values('PP_RHOATOM');
  return { pseudo_potential: out };
}

type NodeAt = (path: string) => Dict;
type ValuesAt = (path: string) => PyFloat[];

function upf2Augmentation(node: NodeAt, values: ValuesAt, betas: Dict[]): Dict[] {
  if (node('PP_NONLOCAL/PP_AUGMENTATION').q_with_l !== 'T') {
    throw new UpfFormatError('augmentation charges without q_with_l = T cannot be converted');
  }
  const out: Dict[] = [];
  betas.forEach((bi, i) => {
    const li = bi.angular_momentum as number;
    for (let j = i; j < betas.length; j++) {
      const lj = betas[j]?.angular_momentum as number;
      for (let l = Math.abs(li - lj); l <= li + lj; l++) {
        if ((li + lj + l) % 2 !== 0) continue;
        const path = `PP_NONLOCAL/PP_AUGMENTATION/PP_QIJL.${i + 1}.${j + 1}.${l}`;
        const l2 = int(node(path).angular_momentum as string);
        if (l2 !== l) throw new UpfFormatError(`wrong angular momentum in ${path}`);
        out.push({ radial_function: values(path), i, j, angular_momentum: l2 });
      }
    }
  });
  return out;
}

function upf2Paw(node: NodeAt, values: ValuesAt, header: Dict): Dict {
  header.cutoff_radius_index = int(node('PP_NONLOCAL/PP_AUGMENTATION').cutoff_r_index as string);
  const nb = header.number_of_proj as number;
  const wfcs = (name: string) =>
    Array.from({ length: nb }, (_, i) => {
      const w = node(`PP_FULL_WFC/${name}.${i + 1}`);
      const wfc: Dict = {
        radial_function: words(w['#text']).map(float),
        angular_momentum: int(w.l as string),
      };
      if ('label' in w) wfc.label = w.label;
      return wfc;
    });
  const paw: Dict = {
    aug_integrals: values('PP_NONLOCAL/PP_AUGMENTATION/PP_Q'),
    aug_multipoles: values('PP_NONLOCAL/PP_AUGMENTATION/PP_MULTIPOLES'),
    ae_wfc: wfcs('PP_AEWFC'),
    ps_wfc: wfcs('PP_PSWFC'),
  };
  const core = node('PP_PAW').core_energy;
  if (core !== undefined) header.paw_core_energy = half(float(String(core)));
  paw.occupations = values('PP_PAW/PP_OCCUPATIONS');
  paw.ae_core_charge_density = values('PP_PAW/PP_AE_NLCC');
  paw.ae_local_potential = values('PP_PAW/PP_AE_VLOC').map(half);
  return paw;
}
