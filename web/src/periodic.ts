/**
 * The periodic table as the element picker lays it out: each element's symbol with its row and column (18
 * groups; lanthanides and actinides in two rows of their own below, La and Ac in group 3).
 */

/** Rows of the table, `.` an empty cell; the f-block rows start at column 4. */
const ROWS = [
  'H . . . . . . . . . . . . . . . . He',
  'Li Be . . . . . . . . . . B C N O F Ne',
  'Na Mg . . . . . . . . . . Al Si P S Cl Ar',
  'K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr',
  'Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe',
  'Cs Ba La Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn',
  'Fr Ra Ac Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og',
  '. . . Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu',
  '. . . Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr',
];

export interface Cell {
  symbol: string;
  /** 1-based row and column of the grid (rows 8 and 9 are the f-block). */
  row: number;
  column: number;
}

export const CELLS: Cell[] = ROWS.flatMap((line, r) =>
  line
    .split(' ')
    .map((symbol, c) => ({ symbol, row: r + 1, column: c + 1 }))
    .filter((cell) => cell.symbol !== '.'),
);

/** Every element's symbol, in the table's reading order. */
export const ELEMENTS: string[] = CELLS.map((c) => c.symbol);
