/**
 * BandsData as an xmgrace project (`agr`), laid out line for line as aiida writes it: a fixed page set-up
 * (fonts, colours, regions), one graph with its axes and labelled k-point ticks, one set per band. aiida
 * builds it from indented Python templates, so every line carries four spaces of indentation.
 */
import { headerComment, plotData, type Bands } from './bands.js';
import { pyFixed, pyFloat } from './python-text.js';

const FONTS: [number, string][] = [
  [8, 'Courier'],
  [10, 'Courier-Bold'],
  [11, 'Courier-BoldOblique'],
  [9, 'Courier-Oblique'],
  [4, 'Helvetica'],
  [6, 'Helvetica-Bold'],
  [7, 'Helvetica-BoldOblique'],
  [5, 'Helvetica-Oblique'],
  [14, 'NimbusMonoL-BoldOblique'],
  [15, 'NimbusMonoL-Regular'],
  [16, 'NimbusMonoL-RegularOblique'],
  [17, 'NimbusRomanNo9L-Medium'],
  [18, 'NimbusRomanNo9L-MediumItalic'],
  [19, 'NimbusRomanNo9L-Regular'],
  [20, 'NimbusRomanNo9L-RegularItalic'],
  [21, 'NimbusSansL-Bold'],
  [22, 'NimbusSansL-BoldCondensed'],
  [23, 'NimbusSansL-BoldCondensedItalic'],
  [24, 'NimbusSansL-BoldItalic'],
  [25, 'NimbusSansL-Regular'],
  [26, 'NimbusSansL-RegularCondensed'],
  [27, 'NimbusSansL-RegularCondensedItalic'],
  [28, 'NimbusSansL-RegularItalic'],
  [29, 'StandardSymbolsL-Regular'],
  [12, 'Symbol'],
  [31, 'Symbol-Regular'],
  [2, 'Times-Bold'],
  [3, 'Times-BoldItalic'],
  [1, 'Times-Italic'],
  [0, 'Times-Roman'],
  [36, 'URWBookmanL-DemiBold'],
  [37, 'URWBookmanL-DemiBoldItalic'],
  [38, 'URWBookmanL-Light'],
  [39, 'URWBookmanL-LightItalic'],
  [40, 'URWChanceryL-MediumItalic'],
  [41, 'URWGothicL-Book'],
  [42, 'URWGothicL-BookOblique'],
  [43, 'URWGothicL-Demi'],
  [44, 'URWGothicL-DemiOblique'],
  [45, 'URWPalladioL-Bold'],
  [46, 'URWPalladioL-BoldItalic'],
  [47, 'URWPalladioL-Italic'],
  [48, 'URWPalladioL-Roman'],
  [13, 'ZapfDingbats'],
];

const COLORS: [string, string][] = [
  ['255, 255, 255', 'white'],
  ['0, 0, 0', 'black'],
  ['255, 0, 0', 'red'],
  ['0, 255, 0', 'green'],
  ['0, 0, 255', 'blue'],
  ['255, 215, 0', 'yellow'],
  ['188, 143, 143', 'brown'],
  ['220, 220, 220', 'grey'],
  ['148, 0, 211', 'violet'],
  ['0, 255, 255', 'cyan'],
  ['255, 0, 255', 'magenta'],
  ['255, 165, 0', 'orange'],
  ['114, 33, 188', 'indigo'],
  ['103, 7, 72', 'maroon'],
  ['64, 224, 208', 'turquoise'],
  ['0, 139, 0', 'green4'],
];

/** A template body: its lines indented by four spaces, opening with a newline and closing with the indent. */
const block = (lines: string[]) => `\n${lines.map((l) => `    ${l}`).join('\n')}\n    `;

function page(graphs: string, sets: string): string {
  const regions = [0, 1, 2, 3, 4].flatMap((r) => [
    `@r${r} off`,
    `@link r${r} to g0`,
    `@r${r} type above`,
    `@r${r} linestyle 1`,
    `@r${r} linewidth 1.0`,
    `@r${r} color 1`,
    `@r${r} line 0, 0, 0, 0`,
  ]);
  return block([
    '# Grace project file',
    '#',
    '@version 50122',
    '@page size 792, 612',
    '@page scroll 5%',
    '@page inout 5%',
    '@link page off',
    ...FONTS.map(([n, name]) => `@map font ${n} to "${name}", "${name}"`),
    ...COLORS.map(([rgb, name], i) => `@map color ${i} to (${rgb}), "${name}"`),
    '@reference date 0',
    '@date wrap off',
    '@date wrap year 1950',
    '@default linewidth 1.0',
    '@default linestyle 1',
    '@default color 1',
    '@default pattern 1',
    '@default font 0',
    '@default char size 1.000000',
    '@default symbol size 1.000000',
    '@default sformat "%.8g"',
    '@background color 0',
    '@page background fill on',
    '@timestamp off',
    '@timestamp 0.03, 0.03',
    '@timestamp color 1',
    '@timestamp rot 0',
    '@timestamp font 0',
    '@timestamp char size 1.000000',
    '@timestamp def "Wed Jul 30 16:44:34 2014"',
    ...regions,
    graphs,
    sets,
  ]);
}

/** The settings of one axis; x and y differ in a few values. */
function axis(
  name: 'xaxis' | 'yaxis',
  o: {
    label: string;
    labelSize: string;
    major: string;
    minor: string;
    grid: string;
    tickSize: string;
    spec: string;
  },
): string[] {
  const lines = [
    'on',
    'type zero false',
    'offset 0.000000 , 0.000000',
    'bar on',
    'bar color 1',
    'bar linestyle 1',
    'bar linewidth 1.0',
    `label "${o.label}"`,
    'label layout para',
    'label place auto',
    `label char size ${o.labelSize}`,
    'label font 4',
    'label color 1',
    'label place normal',
    'tick on',
    `tick major ${o.major}`,
    `tick minor ticks ${o.minor}`,
    'tick default 6',
    'tick place rounded true',
    'tick in',
    'tick major size 1.000000',
    'tick major color 1',
    'tick major linewidth 1.0',
    'tick major linestyle 1',
    `tick major grid ${o.grid}`,
    'tick minor color 1',
    'tick minor linewidth 1.0',
    'tick minor linestyle 1',
    'tick minor grid off',
    'tick minor size 0.500000',
    'ticklabel on',
    'ticklabel format general',
    'ticklabel prec 5',
    'ticklabel formula ""',
    'ticklabel append ""',
    'ticklabel prepend ""',
    'ticklabel angle 0',
    'ticklabel skip 0',
    'ticklabel stagger 0',
    'ticklabel place normal',
    'ticklabel offset auto',
    'ticklabel offset 0.000000 , 0.010000',
    'ticklabel start type auto',
    'ticklabel start 0.000000',
    'ticklabel stop type auto',
    'ticklabel stop 0.000000',
    `ticklabel char size ${o.tickSize}`,
    'ticklabel font 4',
    'ticklabel color 1',
    'tick place both',
    `tick spec type ${o.spec}`,
  ];
  return lines.map((l) => `@    ${name}  ${l}`);
}

function setDescription(n: number, color: number): string {
  const s = `@    s${n}`;
  const symbol = ['symbol 0', 'symbol size 1.000000', `symbol color ${color}`, 'symbol pattern 1'];
  const symbolFill = [`symbol fill color ${color}`, 'symbol fill pattern 0', 'symbol linewidth 1.0'];
  const symbolRest = ['symbol linestyle 1', 'symbol char 65', 'symbol char font 0', 'symbol skip 0'];
  const line = [
    'line type 1',
    'line linestyle 1',
    'line linewidth 2.0',
    `line color ${color}`,
    'line pattern 1',
  ];
  const fill = ['baseline type 0', 'baseline off', 'dropline off', 'fill type 0', 'fill rule 0'];
  const fillColor = [`fill color ${color}`, 'fill pattern 1'];
  const avalue = [
    'avalue off',
    'avalue type 2',
    'avalue char size 1.000000',
    'avalue font 0',
    'avalue color 1',
    'avalue rot 0',
    'avalue format general',
    'avalue prec 3',
    'avalue prepend ""',
    'avalue append ""',
    'avalue offset 0.000000 , 0.000000',
  ];
  const errorbar = [
    'errorbar on',
    'errorbar place both',
    `errorbar color ${color}`,
    'errorbar pattern 1',
    'errorbar size 1.000000',
    'errorbar linewidth 1.0',
    'errorbar linestyle 1',
    'errorbar riser linewidth 1.0',
    'errorbar riser linestyle 1',
    'errorbar riser clip off',
    'errorbar riser clip length 0.100000',
    'comment "Cols 1:2"',
    'legend ""',
  ];
  const lines = [
    'hidden false',
    'type xy',
    ...symbol,
    ...symbolFill,
    ...symbolRest,
    ...line,
    ...fill,
    ...fillColor,
  ];
  return block([...lines, ...avalue, ...errorbar].map((l) => `${s} ${l}`));
}

export function agrProject(b: Bands, units: string): string {
  const p = plotData(b, 'agr_seekpath', '|');
  const columns = p.y[0]?.length ?? 0;
  const all = p.y.flat();
  const [yMin, yMax] = [Math.min(...all), Math.max(...all)];
  const spacing = 10 ** Math.trunc(Math.log10(yMax - yMin));
  const ticks = p.labels
    .map(([pos, name], i) =>
      block([`@    xaxis  tick major ${i}, ${pyFloat(pos)}`, `@    xaxis  ticklabel ${i}, "${name}"`]),
    )
    .join('');
  const xticks = block([`@    xaxis  tick spec ${p.labels.length}`, ticks]);
  const descriptions = Array.from({ length: columns }, (_, i) =>
    setDescription(i, p.bandTypes[i]! % 2 === 0 ? 1 : 2),
  ).join('');
  const graph = block([
    '@g0 on',
    '@g0 hidden false',
    '@g0 type XY',
    '@g0 stacked false',
    '@g0 bar hgap 0.000000',
    '@g0 fixedpoint off',
    '@g0 fixedpoint type 0',
    '@g0 fixedpoint xy 0.000000, 0.000000',
    '@g0 fixedpoint format general general',
    '@g0 fixedpoint prec 6, 6',
    '@with g0',
    `@    world ${pyFloat(Math.min(...p.x))}, ${pyFloat(yMin)}, ${pyFloat(Math.max(...p.x))}, ${pyFloat(yMax)}`,
    '@    stack world 0, 0, 0, 0',
    '@    znorm 1',
    '@    view 0.150000, 0.150000, 1.150000, 0.850000',
    '@    title ""',
    '@    title font 0',
    '@    title size 1.500000',
    '@    title color 1',
    '@    subtitle ""',
    '@    subtitle font 0',
    '@    subtitle size 1.000000',
    '@    subtitle color 1',
    '@    xaxes scale Normal',
    '@    yaxes scale Normal',
    '@    xaxes invert off',
    '@    yaxes invert off',
    ...axis('xaxis', {
      label: '',
      labelSize: '1.000000',
      major: '5',
      minor: '0',
      grid: 'on',
      tickSize: '1.500000',
      spec: 'both',
    }),
    xticks,
    ...axis('yaxis', {
      label: `Dispersion (${units})`,
      labelSize: '1.500000',
      major: spacing >= 1 ? String(spacing) : pyFloat(spacing),
      minor: '1',
      grid: 'off',
      tickSize: '1.250000',
      spec: 'none',
    }),
    '@    altxaxis  off',
    '@    altyaxis  off',
    '@    legend on',
    '@    legend loctype view',
    '@    legend 0.85, 0.8',
    '@    legend box color 1',
    '@    legend box pattern 1',
    '@    legend box linewidth 1.0',
    '@    legend box linestyle 1',
    '@    legend box fill color 0',
    '@    legend box fill pattern 1',
    '@    legend font 0',
    '@    legend char size 1.000000',
    '@    legend color 1',
    '@    legend length 4',
    '@    legend vgap 1',
    '@    legend hgap 1',
    '@    legend invert false',
    '@    frame type 0',
    '@    frame linestyle 1',
    '@    frame linewidth 1.0',
    '@    frame color 1',
    '@    frame pattern 1',
    '@    frame background color 0',
    '@    frame background pattern 0',
    descriptions,
  ]);
  const sets = Array.from({ length: columns }, (_, band) => {
    const xy = p.y
      .map((row, k) => `${pyFixed(p.x[k] as number, 8)}\t${pyFixed(row[band] as number, 8)}\n`)
      .join('');
    return block([`@target G0.S${band}`, '@type xy', xy]);
  }).join('&\n');
  return `${headerComment(b, p)}\n${page(graph, sets)}`;
}
