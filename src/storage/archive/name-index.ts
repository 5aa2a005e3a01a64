/**
 * A zip's entry names -> their index in the zip's tables, as a Map<string, number> would hold them (a name set
 * twice keeps its first place and its last value; keys in the order first set), but stored as UTF-8 bytes in
 * 1 MiB buffers and an open-addressing table of typed arrays. A legacy archive of 10^6 nodes has 750,000 files:
 * a Map took about 120 MB of JavaScript heap for them (whose collector then let the heap grow with it), this
 * about 60 MB outside it.
 */
const CHUNK = 1 << 20;

/** FNV-1a over the UTF-16 code units: names are hashed as JavaScript holds them, stored or looked up. */
function hashOf(name: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < name.length; k++) h = Math.imul(h ^ name.charCodeAt(k), 0x01000193);
  return h >>> 0;
}

export class NameIndex {
  private chunks: Buffer[] = [];
  private used = CHUNK;
  private chunkOf = new Uint32Array(1024);
  private offset = new Uint32Array(1024);
  private length = new Uint32Array(1024);
  private hashes = new Uint32Array(1024);
  private values = new Float64Array(1024);
  /** Each slot holds an entry's number + 1; 0 is empty. At most half full. */
  private slots = new Int32Array(2048);
  size = 0;

  set(name: string, value: number): void {
    const hash = hashOf(name);
    const found = this.find(name, hash);
    if (found >= 0) {
      this.values[found] = value;
      return;
    }
    const u = this.size;
    if (u === this.hashes.length) this.growEntries();
    if ((u + 1) * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    const bytes = Buffer.byteLength(name);
    if (this.used + bytes > CHUNK) {
      this.chunks.push(Buffer.allocUnsafe(Math.max(CHUNK, bytes)));
      this.used = 0;
    }
    const chunk = this.chunks.length - 1;
    this.chunks[chunk]!.write(name, this.used, 'utf8');
    this.chunkOf[u] = chunk;
    this.offset[u] = this.used;
    this.length[u] = bytes;
    this.used += bytes;
    this.hashes[u] = hash;
    this.values[u] = value;
    this.place(u);
    this.size = u + 1;
  }

  get(name: string): number | undefined {
    const u = this.find(name, hashOf(name));
    return u < 0 ? undefined : this.values[u];
  }

  *keys(): IterableIterator<string> {
    for (let u = 0; u < this.size; u++) yield this.nameOf(u);
  }

  private nameOf(u: number): string {
    const at = this.offset[u]!;
    return this.chunks[this.chunkOf[u]!]!.toString('utf8', at, at + this.length[u]!);
  }

  private find(name: string, hash: number): number {
    const mask = this.slots.length - 1;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s]!;
      if (e === 0) return -1;
      const u = e - 1;
      if (this.hashes[u] === hash && this.nameOf(u) === name) return u;
    }
  }

  private place(u: number): void {
    const mask = this.slots.length - 1;
    let s = this.hashes[u]! & mask;
    while (this.slots[s] !== 0) s = (s + 1) & mask;
    this.slots[s] = u + 1;
  }

  private rehash(capacity: number): void {
    this.slots = new Int32Array(capacity);
    for (let u = 0; u < this.size; u++) this.place(u);
  }

  private growEntries(): void {
    const n = this.hashes.length * 2;
    const wider = <T extends Uint32Array | Float64Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.chunkOf = wider(this.chunkOf, new Uint32Array(n));
    this.offset = wider(this.offset, new Uint32Array(n));
    this.length = wider(this.length, new Uint32Array(n));
    this.hashes = wider(this.hashes, new Uint32Array(n));
    this.values = wider(this.values, new Float64Array(n));
  }
}
