// What a drawn chart's files must be, for the tests that draw them: the SVG well-formed XML of the
// size asked for, the PNG starting with PNG's signature and as large.
import fs from 'node:fs';
import { DOMParser } from '@xmldom/xmldom';
import { expect } from 'vitest';

/**
 * @param {{ name: string, svg: string, png: string }} chart as drawRunCharts returns it
 * @param {number} width
 * @param {number} height
 * @returns {string[]} every <text> of the SVG
 */
export function checkChartFiles(chart, width, height) {
  const doc = new DOMParser({
    onError: (level, msg) => {
      throw new Error(`${chart.svg}: ${level}: ${msg}`);
    },
  }).parseFromString(fs.readFileSync(chart.svg, 'utf8'), 'image/svg+xml');
  expect(doc.documentElement.tagName).toBe('svg');
  expect([Number(doc.documentElement.getAttribute('width')), Number(doc.documentElement.getAttribute('height'))], chart.name).toEqual([
    width,
    height,
  ]);
  const png = fs.readFileSync(chart.png);
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect([png.readUInt32BE(16), png.readUInt32BE(20)], chart.png).toEqual([width, height]);
  return Array.from(doc.getElementsByTagName('text'), (t) => t.textContent ?? '');
}
