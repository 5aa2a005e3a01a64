/**
 * Whether a file of a portal folder is an AiiDA archive, by its content rather than its name: projects name
 * AiiDA 1.5+ zips `*.tar.gz`, others `*.zip` or `*.aiida.zip`. A zip is one when its central directory lists
 * `metadata.json` at the top (every export version writes it there); a tar.gz (or tar) when its first entry is
 * one of a legacy archive's (looksLegacyTar). Synchronous, as a folder scan is: a zip's end record and central
 * directory are read, a tarball's first 4 KiB, nothing is unpacked.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { looksLegacyTar, startsAsTarball } from '../storage/archive/legacy/tar-unpack.js';

export type Verdict =
  | { archive: true }
  /** `candidate`: it looked like an archive (a zip, a tarball, an archive's name) and is worth a line. */
  | { archive: false; why: string; candidate: boolean };

const ARCHIVE_NAME = /\.(aiida|zip|tar\.gz|tgz|tar)$/i;

export function archiveVerdict(file: string): Verdict {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    return { archive: false, why: `it cannot be read (${(error as Error).message})`, candidate: true };
  }
  try {
    const head = Buffer.alloc(512);
    const got = readSync(fd, head, 0, head.length, 0);
    const start = head.subarray(0, got);
    if (isZip(start)) {
      return zipListsMetadata(fd)
        ? { archive: true }
        : {
            archive: false,
            why: 'a zip without metadata.json at its top, so no AiiDA archive',
            candidate: true,
          };
    }
    if (startsAsTarball(start) || ARCHIVE_NAME.test(file)) {
      // looksLegacyTar also knows the old tars without a magic, by their headers' checksums.
      if (looksLegacyTar(file)) return { archive: true };
      return {
        archive: false,
        why: startsAsTarball(start)
          ? 'a tarball whose first entry is not metadata.json, data.json or nodes/, so no AiiDA archive'
          : 'neither a zip nor a tar.gz, whatever its name says',
        candidate: true,
      };
    }
    return { archive: false, why: 'neither a zip nor a tar.gz', candidate: false };
  } catch (error) {
    return { archive: false, why: `it cannot be read (${(error as Error).message})`, candidate: true };
  } finally {
    closeSync(fd);
  }
}

/** A zip's first local header, or the end record of an empty zip. */
function isZip(head: Buffer): boolean {
  if (head.length < 4 || head[0] !== 0x50 || head[1] !== 0x4b) return false;
  return (head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6);
}

const END_RECORD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const CENTRAL_ENTRY = 0x02014b50;
/** The end record (22 bytes) and the longest comment after it. */
const TAIL = 22 + 0xffff;
const CHUNK = 1 << 20;

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const got = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, got);
}

/** Whether the zip's central directory has a `metadata.json` entry, read a MiB at a time, stopping there. */
function zipListsMetadata(fd: number): boolean {
  const size = fstatSync(fd).size;
  const tailStart = Math.max(0, size - TAIL);
  const tail = readAt(fd, tailStart, size - tailStart);
  let end = -1;
  for (let at = tail.length - 22; at >= 0; at--) {
    if (tail.readUInt32LE(at) === END_RECORD) {
      end = at;
      break;
    }
  }
  if (end < 0) return false;
  let entries = tail.readUInt16LE(end + 10);
  let length = tail.readUInt32LE(end + 12);
  let offset = tail.readUInt32LE(end + 16);
  if (offset === 0xffffffff || entries === 0xffff || length === 0xffffffff) {
    if (end < 20 || tail.readUInt32LE(end - 20) !== ZIP64_LOCATOR) return false;
    const record = readAt(fd, Number(tail.readBigUInt64LE(end - 20 + 8)), 56);
    if (record.length < 56 || record.readUInt32LE(0) !== ZIP64_END) return false;
    entries = Number(record.readBigUInt64LE(32));
    length = Number(record.readBigUInt64LE(40));
    offset = Number(record.readBigUInt64LE(48));
  }
  if (offset + length > size) return false;
  let buffer = Buffer.alloc(0);
  let read = offset;
  const stop = offset + length;
  for (let seen = 0; seen < entries; seen++) {
    if (buffer.length < 46 && read < stop) {
      buffer = Buffer.concat([buffer, readAt(fd, read, Math.min(CHUNK, stop - read))]);
      read += CHUNK;
    }
    if (buffer.length < 46 || buffer.readUInt32LE(0) !== CENTRAL_ENTRY) return false;
    const entryLength = 46 + buffer.readUInt16LE(28) + buffer.readUInt16LE(30) + buffer.readUInt16LE(32);
    while (buffer.length < entryLength && read < stop) {
      buffer = Buffer.concat([buffer, readAt(fd, read, Math.min(CHUNK, stop - read))]);
      read += CHUNK;
    }
    if (buffer.length < entryLength) return false;
    const name = buffer.subarray(46, 46 + buffer.readUInt16LE(28)).toString('utf8');
    if (name === 'metadata.json') return true;
    buffer = buffer.subarray(entryLength);
  }
  return false;
}
