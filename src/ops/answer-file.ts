/**
 * Kept answers in a file of the cache folder that every serving process of the machine opens: one copy of each
 * answer for the machine, not one per process (quarry serve runs one serving process per core; each kept its
 * own copy, 370-380 MB apiece after a benchmark, where idle they hold 90). The file is an SQLite database in
 * write-ahead-log mode, read through a shared memory map, so that the pages of a kept answer are the operating
 * system's page cache, shared by all processes, and no process's own heap.
 *
 * Bounded in bytes for the whole machine: past the bound, the least recently used answers go (a use is noted
 * at most once a minute per answer per process, so that hits do not write). What the file holds is only ever
 * derived from the data; one that cannot be opened (damaged, another version's) is made again.
 *
 * Only answers read are mapped. Counting the file's bytes and letting answers go read through a connection of
 * their own without a map: through the map they brought every page they passed into the process (a count read
 * each answer's whole body to reach the column after it, and freeing an answer reads each of its pages), so
 * that after a load a process mapped most of the file, 100 MB and more, answers nobody had read again among it.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BytesKept } from '../util/bytes-kept.js';
import type { AnswerStore, KeptAnswer } from './answer-store.js';

/** 2: the body is the last column, so that reading the others never passes over it. */
const SCHEMA_VERSION = 2;
/** A use is written at most this often per answer and process. */
const TOUCH_MS = 60_000;
/** Past the bound, answers go until the file holds this share of it. */
const AFTER_EVICTION = 0.8;
/**
 * Answers read from the file are held in the process too, up to this many bytes: a hot answer (the explorer's
 * grid, 418 kB, asked by 64 clients at once) read anew from the file for each request cost 40 % more CPU per
 * answer than the same bytes sent again. Small beside the file, so that a process's memory stays near its idle size.
 */
const HOT_BYTES = 8 * 1024 * 1024;

/** The connection that writes, with the file's schema made or checked (waiting up to 5 s for another process). */
function open(file: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(file, { timeout: 5_000 });
  db.pragma('journal_mode = WAL');
  // A cache: a power cut may lose the last answers kept, never the data served.
  db.pragma('synchronous = OFF');
  db.exec(`CREATE TABLE IF NOT EXISTS kept_answers (
    key TEXT PRIMARY KEY, bytes INTEGER NOT NULL, used INTEGER NOT NULL, headers TEXT NOT NULL, body BLOB NOT NULL)`);
  db.exec('CREATE INDEX IF NOT EXISTS kept_answers_used ON kept_answers (used)');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== SCHEMA_VERSION) {
    if (version !== 0) throw new Error(`kept answers of schema ${version}, not ${SCHEMA_VERSION}`);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }
  return forServing(db);
}

/** A connection as the serving thread uses it, either of the two. */
function forServing(db: BetterSqlite3.Database): BetterSqlite3.Database {
  // The serving thread waits for a lock synchronously: past a few milliseconds an answer is better not kept.
  db.pragma('busy_timeout = 20');
  db.pragma('cache_size = -2048');
  return db;
}

/** Opens `file` (made if missing, made again if it cannot be read), keeping at most `capacityBytes` in it. */
export function answerFile(file: string, capacityBytes: number): AnswerStore {
  mkdirSync(dirname(file), { recursive: true });
  let writes: BetterSqlite3.Database;
  try {
    writes = open(file);
  } catch {
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    writes = open(file);
  }
  // The schema is the writing connection's to make: this one only reads.
  const reads = forServing(new BetterSqlite3(file));
  // Answers read come from the page cache every process shares, not from a copy in this one.
  reads.pragma(`mmap_size = ${capacityBytes * 2}`);
  const get = reads.prepare<[string], { body: Buffer; headers: string; used: number }>(
    'SELECT body, headers, used FROM kept_answers WHERE key = ?',
  );
  const put = writes.prepare(
    'INSERT OR REPLACE INTO kept_answers (key, bytes, used, headers, body) VALUES (?, ?, ?, ?, ?)',
  );
  const touch = writes.prepare('UPDATE kept_answers SET used = ? WHERE key = ?');
  const total = writes.prepare<[], { bytes: number | null; entries: number }>(
    'SELECT sum(bytes) AS bytes, count(*) AS entries FROM kept_answers',
  );
  const oldest = writes.prepare<[], { key: string; bytes: number }>(
    'SELECT key, bytes FROM kept_answers ORDER BY used LIMIT 64',
  );
  const remove = writes.prepare('DELETE FROM kept_answers WHERE key = ?');
  /** Bytes in the file as this process last counted them, plus what it added since (others add too). */
  let bytes = total.get()?.bytes ?? 0;
  let sinceCount = 0;

  const evict = writes.transaction(() => {
    bytes = total.get()?.bytes ?? 0;
    while (bytes > capacityBytes * AFTER_EVICTION) {
      const rows = oldest.all();
      if (rows.length === 0) break;
      for (const row of rows) {
        remove.run(row.key);
        bytes -= row.bytes;
        if (bytes <= capacityBytes * AFTER_EVICTION) break;
      }
    }
  });

  const hot = new BytesKept<{ answer: KeptAnswer; used: number }>(HOT_BYTES, (h) => h.answer.body.length);
  /** The file's least recently used go first: a use is noted there, at most once a minute per answer. */
  const noteUse = (key: string, used: number, now: number) => {
    if (now - used <= TOUCH_MS) return false;
    try {
      touch.run(now, key);
    } catch {
      // Another process writes: the use is noted by the next hit.
    }
    return true;
  };

  let closed = false;
  return {
    shared: true,
    get(key) {
      if (closed) return undefined;
      const now = Date.now();
      const held = hot.get(key);
      if (held !== undefined) {
        if (noteUse(key, held.used, now)) held.used = now;
        return held.answer;
      }
      const row = get.get(key);
      if (row === undefined) return undefined;
      const answer = { body: row.body, headers: JSON.parse(row.headers) as KeptAnswer['headers'] };
      hot.set(key, { answer, used: noteUse(key, row.used, now) ? now : row.used });
      return answer;
    },
    set(key, answer) {
      if (closed) return;
      const headers = JSON.stringify(answer.headers);
      const size = answer.body.length + headers.length + key.length;
      if (size > capacityBytes / 8) return;
      try {
        put.run(key, size, Date.now(), headers, answer.body);
        bytes += size;
        sinceCount += size;
        // Other processes add too: the file's own count is read again at times, and always before evicting.
        if (bytes > capacityBytes || sinceCount > capacityBytes / 16) {
          sinceCount = 0;
          bytes = total.get()?.bytes ?? 0;
          if (bytes > capacityBytes) evict();
        }
      } catch {
        // Busy past the time-out, or the disk is full: the answer is sent, not kept.
      }
    },
    get size() {
      const t = total.get();
      return { entries: t?.entries ?? 0, bytes: t?.bytes ?? 0 };
    },
    close() {
      if (closed) return;
      closed = true;
      hot.clear();
      reads.close();
      writes.close();
    },
  };
}
