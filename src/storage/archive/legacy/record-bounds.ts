/**
 * Where the tokens of data.json are (section, entity, record key), and the bounds on one record (limits.ts):
 * its size as written, its values and keys, the length of each key. A record is held whole in memory while it
 * is staged, so a record past them is refused as it is read, with a line that names it.
 */
import { TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { LegacyArchiveError, MAX_KEY_CHARS, MAX_RECORD_BYTES, MAX_RECORD_VALUES } from './limits.js';

interface Frame {
  object: boolean;
  key: string | undefined;
  /** The next string of an object is a key. */
  keyNext: boolean;
  /** Index of an array's current element. */
  index: number;
}

/** A key as shown in a message: a hostile one may be megabytes long. */
export function shownKey(key: string | number | undefined): string {
  const text = String(key ?? '?');
  return text.length > 40 ? `${JSON.stringify(text.slice(0, 40))}... (${text.length} characters)` : text;
}

/** The record of data.json at `section` (and `entity` under export_data) keyed `key`, for messages. */
export function recordName(section: string, entity: string | undefined, key: string | number): string {
  const k = shownKey(key);
  switch (section) {
    case 'export_data': {
      const name = (entity ?? '?').replace(/^.*\./, '').replace(/^Db/, '').toLowerCase();
      return `${name} ${k}`;
    }
    case 'node_attributes':
      return `the attributes of node ${k}`;
    case 'node_extras':
      return `the extras of node ${k}`;
    case 'node_attributes_conversion':
    case 'node_extras_conversion':
      return `the ${section.replace(/_/g, ' ').replace('node ', '')} of node ${k}`;
    case 'links_uuid':
      return `link ${Number(key) + 1}`;
    case 'groups_uuid':
      return `the members of group ${k}`;
    default:
      return `${shownKey(section)}.${k}`;
  }
}

/** A refusal of data.json past a bound, with what to do. */
export function pastBound(text: string): LegacyArchiveError {
  return new LegacyArchiveError(
    `data.json ${text}; Quarry serves no archive past its bounds (docs/serve-archive.md): export the data again without it`,
  );
}

export class RecordWatch {
  private readonly frames: Frame[] = [];
  private start = -1;
  private values = 0;

  /** Where the token being read is: the record's name, or the section's when outside any record. */
  where(): string {
    const section = this.frames[0]?.key;
    if (section === undefined) return 'data.json';
    const depth = section === 'export_data' ? 2 : 1;
    const holder = this.frames[depth];
    if (holder === undefined) return `its section ${shownKey(section)}`;
    const key = holder.object ? holder.key : holder.index;
    return recordName(section, this.frames[1]?.key, key ?? '?');
  }

  /** Depth of the frame whose values are records. */
  private recordsAt(): number {
    return this.frames[0]?.key === 'export_data' ? 3 : 2;
  }

  token(info: ParsedTokenInfo): void {
    const { token } = info;
    const top = this.frames[this.frames.length - 1];
    const inRecord = this.frames.length > this.recordsAt();
    if (token === TokenType.COMMA) {
      if (top?.object) top.keyNext = true;
      else if (top) top.index++;
      return;
    }
    if (token === TokenType.COLON) return;
    if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) {
      this.frames.pop();
      return;
    }
    if (token === TokenType.STRING && top?.object && top.keyNext) {
      const key = info.value as string;
      top.key = key;
      top.keyNext = false;
      if (key.length > MAX_KEY_CHARS) {
        throw pastBound(`has a key of ${key.length} characters in ${this.where()}, past ${MAX_KEY_CHARS}`);
      }
      if (inRecord) this.count(info.offset + key.length);
      return;
    }
    // A value: a record starts when one opens in the frame that holds them.
    if (this.frames.length === this.recordsAt()) {
      this.start = info.offset;
      this.values = 0;
    }
    if (this.frames.length >= this.recordsAt()) {
      this.count(info.offset + (typeof info.value === 'string' ? info.value.length : 0));
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      this.frames.push({ object: token === TokenType.LEFT_BRACE, key: undefined, keyNext: true, index: 0 });
    }
  }

  /** Counts a value or key ending at `end` (a byte offset, about). */
  private count(end: number): void {
    if (++this.values > MAX_RECORD_VALUES) {
      throw pastBound(
        `has more than ${MAX_RECORD_VALUES} values and keys in ${this.where()}, the bound on one record`,
      );
    }
    if (end - this.start > MAX_RECORD_BYTES) {
      throw pastBound(`has more than ${MAX_RECORD_BYTES} bytes in ${this.where()}, the bound on one record`);
    }
  }
}
