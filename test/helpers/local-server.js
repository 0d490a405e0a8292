// A throwaway local Redis for one test file: started before its tests, stopped (by PID) after
// them, with the temp dirs the file's runs made.
import { afterAll, beforeAll } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { removeTempDirs } from './producer-run.js';

/**
 * @param {Parameters<typeof startRedis>[0]} [opts]
 * @returns {{ server: Awaited<ReturnType<typeof startRedis>> }} filled in before the tests run
 */
export function useLocalRedis(opts) {
  const box = /** @type {{ server: any }} */ ({ server: null });
  beforeAll(async () => {
    box.server = await startRedis(opts);
  }, 60_000);
  afterAll(async () => {
    await box.server?.stop();
    removeTempDirs();
  });
  return box;
}
