/**
 * Redis seeds itself afresh in every process: its dict hash function (SipHash) from
 * /dev/urandom, random() (the skiplist's levels) and rand() from the time and its PID. Which
 * command names share a bucket of the command table, how long a sorted set's searches are: each
 * moves with the seeds, and so does a count of instructions per item (1-2 % between two runs of
 * the same command here). Under --count-instructions the nodes are started with a small
 * LD_PRELOAD library that hands Redis the same seeds every time, so the count repeats.
 *
 * The library is compiled here, once per machine, with the system's C compiler (cc); without
 * one, the nodes keep Redis's own seeds and the summary says so.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from './local-redis.js';

const SOURCE = `/* rqbench --count-instructions: the same seeds for every Redis process (src/local/fixed-seeds.js). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char SEED[64] = "rqbench: fixed seeds so that a count of instructions repeats...";

FILE *fopen(const char *path, const char *mode) {
  static FILE *(*real)(const char *, const char *);
  if (!real) real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
  if (path && strcmp(path, "/dev/urandom") == 0) return fmemopen((void *)SEED, sizeof SEED, "r");
  return real(path, mode);
}

void srandom(unsigned int seed) {
  static void (*real)(unsigned int);
  if (!real) real = (void (*)(unsigned int))dlsym(RTLD_NEXT, "srandom");
  (void)seed;
  real(1);
}

void srand(unsigned int seed) {
  static void (*real)(unsigned int);
  if (!real) real = (void (*)(unsigned int))dlsym(RTLD_NEXT, "srand");
  (void)seed;
  real(1);
}
`;

/**
 * The library's path, compiled if this machine has not got it yet; null without a C compiler
 * (or when it does not compile: the reason is returned instead).
 * @returns {{ file: string|null, why?: string }}
 */
export function fixedSeedsLibrary() {
  const cc = findExecutable('cc') ?? findExecutable('gcc');
  if (!cc) return { file: null, why: 'no C compiler (cc) to build the fixed-seeds library' };
  const hash = createHash('sha256').update(SOURCE).digest('hex').slice(0, 12);
  const file = path.join(os.tmpdir(), `rqbench-fixed-seeds-${hash}.so`);
  if (fs.existsSync(file)) return { file };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-seeds-'));
  try {
    const src = path.join(dir, 'fixed-seeds.c');
    fs.writeFileSync(src, SOURCE);
    const built = path.join(dir, 'fixed-seeds.so');
    execFileSync(cc, ['-shared', '-fPIC', '-O2', '-o', built, src, '-ldl'], { stdio: 'pipe', timeout: 60_000 });
    // renamed into place whole: another run compiling at the same time finds a complete file or none
    fs.renameSync(built, file);
    return { file };
  } catch (e) {
    return {
      file: null,
      why: `the fixed-seeds library did not compile: ${
        String(e.stderr ?? e.message)
          .trim()
          .split('\n')[0]
      }`,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
