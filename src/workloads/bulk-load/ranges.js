/**
 * Splitting one file into byte ranges for the reader threads, and checking afterwards that the
 * records they reported tile the file exactly: each record read once, none missed.
 *
 * Ownership rule: a thread owns every record whose first byte lies in its range [start, end).
 * The ranges are cut at arbitrary bytes (the seed's "chunks"), so a thread resyncs at the first
 * record that starts at or after `start` and reads past `end` to finish its last record.
 */

/**
 * @param {number} size file bytes
 * @param {number} parts reader threads
 * @returns {Array<{ start: number, end: number }>}
 */
export function byteRanges(size, parts) {
  const out = [];
  for (let i = 0; i < parts; i++) out.push({ start: Math.floor((size * i) / parts), end: Math.floor((size * (i + 1)) / parts) });
  return out;
}

/**
 * @typedef {{ first: number, last: number, count: number }} ThreadRecords
 *   indices of the first and last record a thread read (first = -1 when none) and how many
 */

/**
 * Problems with what the threads reported, in range order; [] when every record of the file
 * was read exactly once.
 * @param {ThreadRecords[]} threads in the order of their ranges
 * @param {number} records in the file
 * @returns {string[]}
 */
export function tilingProblems(threads, records) {
  const problems = [];
  let next = 0;
  threads.forEach((t, i) => {
    if (t.count === 0) return;
    if (t.last - t.first + 1 !== t.count) problems.push(`thread ${i + 1} read ${t.count} records between ${t.first} and ${t.last}`);
    if (t.first !== next) problems.push(`thread ${i + 1} starts at record ${t.first}, expected ${next}`);
    next = t.last + 1;
  });
  if (next !== records) problems.push(`the last record read is ${next - 1}, the file has ${records}`);
  const total = threads.reduce((s, t) => s + t.count, 0);
  if (total !== records) problems.push(`${total} records read, the file has ${records}`);
  return problems;
}
