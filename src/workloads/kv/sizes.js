/**
 * A value's size in bytes, as memtier_benchmark's --data-size, --data-size-range and
 * --data-size-list say it: `512` (fixed), `128-1024` (uniform, both ends included) or
 * `128:8,1024:2` (sizes with weights: 128 bytes 8 times in 10).
 */

import { streamOf } from './random.js';

/** @typedef {import('./random.js').Uniform} Uniform */
/** @typedef {{ kind: 'fixed', size: number } | { kind: 'range', min: number, max: number } | { kind: 'list', sizes: number[], weights: number[] }} SizeDist */

export const SIZE_FORMS = 'N (bytes), MIN-MAX (uniform) or SIZE:WEIGHT,SIZE:WEIGHT,… (weighted), sizes from 1 to 16777216';
const MAX = 16 * 1024 * 1024;

const size = (x) => (/^\d+$/.test(x) && Number(x) >= 1 && Number(x) <= MAX ? Number(x) : NaN);

/**
 * @param {string|number} text
 * @returns {SizeDist|string} a string: what is wrong
 */
export function parseSizes(text) {
  const t = String(text).trim();
  if (/^\d+$/.test(t)) return Number.isFinite(size(t)) ? { kind: 'fixed', size: size(t) } : SIZE_FORMS;
  const range = /^(\d+)-(\d+)$/.exec(t);
  if (range) {
    const [min, max] = [size(range[1]), size(range[2])];
    return min <= max ? { kind: 'range', min, max } : SIZE_FORMS;
  }
  const parts = t.split(',').map((p) => /^(\d+):(\d+(?:\.\d+)?)$/.exec(p.trim()));
  if (parts.every(Boolean)) {
    const sizes = parts.map((m) => size(/** @type {RegExpExecArray} */ (m)[1]));
    const weights = parts.map((m) => Number(/** @type {RegExpExecArray} */ (m)[2]));
    if (sizes.every(Number.isFinite) && weights.every((w) => w > 0)) return { kind: 'list', sizes, weights };
  }
  return SIZE_FORMS;
}

/**
 * @param {SizeDist} dist
 * @param {Uniform} random
 * @returns {() => number}
 */
export function sizeChooser(dist, random) {
  if (dist.kind === 'fixed') return () => dist.size;
  if (dist.kind === 'range') return () => dist.min + Math.floor(random() * (dist.max - dist.min + 1));
  const total = dist.weights.reduce((a, b) => a + b, 0);
  const upTo = [];
  let acc = 0;
  for (const w of dist.weights) upTo.push((acc += w / total));
  return () => {
    const u = random();
    for (let i = 0; i < upTo.length; i++) if (u < upTo[i]) return dist.sizes[i];
    return dist.sizes[dist.sizes.length - 1];
  };
}

/**
 * The mean size, for the summary and for a capacity estimate of the bytes a second.
 * @param {SizeDist} dist
 */
export function meanSize(dist) {
  if (dist.kind === 'fixed') return dist.size;
  if (dist.kind === 'range') return (dist.min + dist.max) / 2;
  const total = dist.weights.reduce((a, b) => a + b, 0);
  return dist.sizes.reduce((a, s, i) => a + (s * dist.weights[i]) / total, 0);
}

/**
 * The value bytes every SET draws its prefix from: letters from the seed, as long as the largest size.
 * @param {SizeDist} sizes
 * @param {number} seed
 */
export function valueBytes(sizes, seed) {
  const max = sizes.kind === 'fixed' ? sizes.size : sizes.kind === 'range' ? sizes.max : Math.max(...sizes.sizes);
  const random = streamOf(seed, 'value');
  const buf = Buffer.allocUnsafe(max);
  for (let i = 0; i < max; i++) buf[i] = 97 + Math.floor(random() * 26);
  return buf;
}
