/**
 * Who is the bottleneck, seen from the machine (Linux /proc), sampled every 200 ms:
 *  - whole-machine CPU (all cores) from /proc/stat, to show what else ran on the box;
 *  - Redis's own CPU from /proc/<pid>/stat (cross-checks INFO cpu);
 *  - unread bytes in Redis's client sockets (rx_queue in /proc/net/tcp, local port = Redis's).
 *    Bytes waiting there mean Redis had work it had not got to: Redis, not the client, was
 *    the bottleneck at that instant. An empty queue while Redis is busy means it was waiting
 *    for the client.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CLK_TCK, processCpuSeconds } from './proc.js';

const EVERY_MS = 200;
/** A sample counts as "Redis busy" when Redis used at least this share of a core in it. */
const BUSY_SHARE = 0.1;

function readStat() {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
}

/** Sum of rx_queue over established sockets whose local port is `port` (Redis's side). */
function unreadBytes(port) {
  let text;
  try {
    text = fs.readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return null;
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let sum = 0;
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5 || f[3] !== '01' || !f[1].endsWith(`:${hexPort}`)) continue;
    sum += parseInt(f[4].split(':')[1], 16);
  }
  return sum;
}

export class MachineSampler {
  /**
   * @param {{ redisPid: number, redisPort: number }} o
   */
  constructor({ redisPid, redisPort }) {
    this.redisPid = redisPid;
    this.redisPort = redisPort;
    this.samples = [];
    this.timer = null;
  }

  start() {
    const tick = () => {
      this.samples.push({
        at: performance.now(),
        stat: readStat(),
        redisCpuS: processCpuSeconds(this.redisPid),
        unread: unreadBytes(this.redisPort),
      });
    };
    tick();
    this.timer = setInterval(tick, EVERY_MS);
    this.timer.unref();
    return this;
  }

  stop() {
    clearInterval(this.timer);
  }

  /** @returns {number} a mark for between() */
  mark() {
    return performance.now();
  }

  /**
   * Figures between two marks.
   * @returns {{ wallS: number, machineBusyPct: number, stealPct: number, redisProcCpuPct: number,
   *   redisBusySamples: number, backlogPct: number|null }} percentages of one core (machine: summed over cores)
   */
  between(from, to) {
    const s = this.samples.filter((x) => x.at >= from && x.at <= to);
    if (s.length < 2) return null;
    const a = s[0];
    const b = s.at(-1);
    const wallS = (b.at - a.at) / 1000;
    const ticks = (k) => (b.stat[k] - a.stat[k]) / CLK_TCK;
    let busySamples = 0;
    let withBacklog = 0;
    for (let i = 1; i < s.length; i++) {
      const dt = (s[i].at - s[i - 1].at) / 1000;
      const share = (s[i].redisCpuS - s[i - 1].redisCpuS) / dt;
      if (!(share >= BUSY_SHARE)) continue;
      busySamples++;
      if (s[i].unread > 0) withBacklog++;
    }
    return {
      wallS,
      machineBusyPct: (ticks('busy') / wallS) * 100,
      stealPct: (ticks('steal') / wallS) * 100,
      redisProcCpuPct: ((b.redisCpuS - a.redisCpuS) / wallS) * 100,
      redisBusySamples: busySamples,
      backlogPct: busySamples ? (withBacklog / busySamples) * 100 : null,
    };
  }
}
