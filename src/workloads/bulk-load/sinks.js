/**
 * Where a reader thread puts the records it parsed. Every sink takes a batch as the read buffer
 * plus the records' offsets (key start, key end, value start, value end per record) and must be
 * done with the buffer when write() returns (or its promise resolves): the buffer is reused.
 *
 * - noop: counts (the cost of reading and parsing alone)
 * - memory: a Map per thread, key string → copy of the value bytes
 * - redis: see redis-sink.js
 */

/**
 * @typedef {object} Sink
 * @property {(buf: Buffer, offs: Int32Array, n: number) => void|Promise<void>} write
 * @property {() => Promise<object>} finish waits for everything written to be stored; returns figures
 * @property {() => void} close
 */

/** @returns {Sink} */
export function noopSink() {
  let records = 0;
  return {
    write(_buf, _offs, n) {
      records += n;
    },
    async finish() {
      return { stored: records };
    },
    close() {},
  };
}

/** @returns {Sink} */
export function memorySink() {
  const store = new Map();
  let records = 0;
  return {
    write(buf, offs, n) {
      for (let i = 0, o = 0; i < n; i++, o += 4)
        store.set(buf.latin1Slice(offs[o], offs[o + 1]), Buffer.from(buf.subarray(offs[o + 2], offs[o + 3])));
      records += n;
    },
    // a key seen twice in one thread would leave store.size below the records written
    async finish() {
      return { stored: records, keys: store.size };
    },
    close() {
      store.clear();
    },
  };
}
