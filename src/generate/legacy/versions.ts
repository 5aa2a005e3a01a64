/**
 * What each legacy export version (0.1 to 0.13, the JSON format of AiiDA 0.x and 1.x) holds: its entity names,
 * the fields of each entity, and the top-level keys of data.json and metadata.json. Read from aiida-core's own
 * archives of each version and from its migrations (aiida-core 1.6.9 aiida/tools/importexport/archive/migrations
 * for 0.1 -> 0.4, aiida-core 2.x src/aiida/storage/sqlite_zip/migrations/legacy for 0.4 -> 0.13): a version
 * here is the state those migrations step from, so an archive written here migrates as a real one would.
 */

export const LEGACY_VERSIONS = [
  '0.1',
  '0.2',
  '0.3',
  '0.4',
  '0.5',
  '0.6',
  '0.7',
  '0.8',
  '0.9',
  '0.10',
  '0.11',
  '0.12',
  '0.13',
] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];

export function isLegacyVersion(version: string): version is LegacyVersion {
  return (LEGACY_VERSIONS as readonly string[]).includes(version);
}

/** The AiiDA version in metadata.json: the one aiida-core's own archive of that version names. */
const AIIDA_VERSION: Record<LegacyVersion, string> = {
  '0.1': '0.4.1',
  '0.2': '1.1.1',
  '0.3': '1.1.1',
  '0.4': '1.1.1',
  '0.5': '1.1.1',
  '0.6': '1.1.1',
  '0.7': '1.1.1',
  '0.8': '1.1.1',
  '0.9': '1.1.1',
  '0.10': '2.0.0a1',
  '0.11': '2.0.0a1',
  '0.12': '2.0.0a1',
  '0.13': '2.0.2.post0',
};

type Field = Record<string, string>;
type Fields = Record<string, Field>;

/** The entity kinds, by their generic names; `entity()` gives the name a version uses. */
export type Entity = 'Node' | 'Group' | 'Computer' | 'User' | 'Link' | 'Attribute' | 'Log' | 'Comment';

export class LegacyFormat {
  /** The minor number: 0.13 -> 13. */
  readonly v: number;

  constructor(readonly version: LegacyVersion) {
    this.v = Number(version.split('.')[1]);
  }

  get aiidaVersion() {
    return AIIDA_VERSION[this.version];
  }

  /** 0.1 and 0.2 name entities after aiida 0.x's Django models; 0.3 onwards by their bare names. */
  entity(name: Entity): string {
    return this.v <= 2 ? `aiida.backends.djsite.db.models.Db${name}` : name;
  }

  /** Logs and comments exist from 0.4 (AiiDA 1.0). */
  get hasLogsAndComments() {
    return this.v >= 4;
  }

  /** Link types: none in 0.1-0.2, the old `inputlink`... in 0.3, AiiDA 1.x's `input_calc`... from 0.4. */
  get linkTypes(): 'none' | 'old' | 'new' {
    return this.v <= 2 ? 'none' : this.v === 3 ? 'old' : 'new';
  }

  /** data.json's top-level keys, in the order aiida-core wrote them. */
  get dataKeys(): string[] {
    if (this.v <= 3)
      return ['links_uuid', 'export_data', 'groups_uuid', 'node_attributes_conversion', 'node_attributes'];
    if (this.v <= 5)
      return [
        'links_uuid',
        'export_data',
        'groups_uuid',
        'node_attributes_conversion',
        'node_attributes',
        'node_extras',
        'node_extras_conversion',
      ];
    return ['links_uuid', 'export_data', 'groups_uuid', 'node_attributes', 'node_extras'];
  }

  /** The fields of each entity row in export_data, as all_fields_info declares them. */
  fields(): Partial<Record<Entity, Fields>> {
    const rel = (relatedName: string, requires: Entity) => ({
      related_name: relatedName,
      requires: this.entity(requires),
    });
    const date = { convert_type: 'date' };
    const node: Fields = {
      ...(this.v <= 4 ? { nodeversion: {} } : {}),
      description: {},
      dbcomputer: rel('dbnodes', 'Computer'),
      ctime: date,
      user: rel('dbnodes', 'User'),
      mtime: date,
      label: {},
      ...(this.v <= 3 ? { type: {} } : {}),
      ...(this.v <= 4 ? { public: {} } : {}),
      uuid: {},
      ...(this.v >= 4 ? { process_type: {}, node_type: {} } : {}),
      ...(this.v >= 10 ? { attributes: { convert_type: 'jsonb' }, extras: { convert_type: 'jsonb' } } : {}),
    };
    const group: Fields =
      this.v <= 3
        ? { description: {}, name: {}, user: rel('dbgroups', 'User'), time: date, type: {}, uuid: {} }
        : {
            description: {},
            user: rel('dbgroups', 'User'),
            time: date,
            uuid: {},
            label: {},
            type_string: {},
            ...(this.v >= 10 ? { extras: { convert_type: 'jsonb' } } : {}),
          };
    const computer: Fields = {
      description: {},
      ...(this.v <= 4 ? { transport_params: {} } : {}),
      hostname: {},
      ...(this.v <= 3 ? { enabled: {} } : {}),
      ...(this.v <= 10 ? { name: {} } : {}),
      transport_type: {},
      metadata: {},
      scheduler_type: {},
      uuid: {},
      ...(this.v >= 11 ? { label: {} } : {}),
    };
    const user: Fields = { first_name: {}, last_name: {}, email: {}, institution: {} };
    const link: Fields = {
      input: rel('output_links', 'Node'),
      label: {},
      output: rel('input_links', 'Node'),
    };
    const attribute: Fields = {
      dbnode: rel('dbattributes', 'Node'),
      dval: date,
      datatype: {},
      fval: {},
      tval: {},
      key: {},
      ival: {},
      bval: {},
    };
    const log: Fields = {
      uuid: {},
      time: date,
      loggername: {},
      levelname: {},
      message: {},
      metadata: {},
      dbnode: rel('dblogs', 'Node'),
    };
    const comment: Fields = {
      uuid: {},
      ctime: date,
      mtime: date,
      content: {},
      dbnode: rel('dbcomments', 'Node'),
      user: rel('dbcomments', 'User'),
    };
    // Link and Attribute were declared, never used, and dropped from the metadata in 0.7.
    const unused = this.v <= 6 ? { Link: link, Attribute: attribute } : {};
    return {
      Node: node,
      ...(this.v <= 2 ? {} : unused),
      Group: group,
      Computer: computer,
      User: user,
      ...(this.v <= 2 ? unused : {}),
      ...(this.hasLogsAndComments ? { Log: log, Comment: comment } : {}),
    };
  }

  /** metadata.json: the keys of aiida-core's archive of the same version. */
  metadata(generator: string): Record<string, unknown> {
    const fields = this.fields();
    const allFieldsInfo: Record<string, Fields> = {};
    const uniqueIdentifiers: Record<string, string | null> = {};
    for (const [name, value] of Object.entries(fields) as [Entity, Fields][]) {
      allFieldsInfo[this.entity(name)] = value;
      uniqueIdentifiers[this.entity(name)] =
        name === 'User' ? 'email' : name === 'Link' || name === 'Attribute' ? null : 'uuid';
    }
    return {
      export_version: this.version,
      aiida_version: this.aiidaVersion,
      unique_identifiers: uniqueIdentifiers,
      all_fields_info: allFieldsInfo,
      // aiida-core lists here the migrations an archive went through; this one was written as it is.
      ...(this.v >= 2
        ? { conversion_info: [`written as export version ${this.version} by ${generator}`] }
        : {}),
    };
  }
}
