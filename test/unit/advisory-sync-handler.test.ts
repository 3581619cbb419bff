/**
 * The advisory sync function's run: nothing without a source, each ecosystem synced on its own, and a
 * run in which one ecosystem's source failed fails (the function's error alarm) after the others synced.
 */
import { describe, expect, it } from 'vitest';
import { makeHandler } from '../../functions/advisory-sync.ts';
import { parseConfig } from '../../shared/config.ts';
import { SourceError, type AdvisorySync, type EcosystemSyncReport } from '../../shared/services/advisory-sync.ts';

const report = (ecosystem: string): EcosystemSyncReport => ({ ecosystem, mode: 'incremental', fetched: 1, new: 1, changed: 0, unchanged: 0, withdrawn: 0, refused: 0, syncedUntil: null, left: 0 });

describe('the advisory sync function', () => {
  it('does nothing when no source or no ecosystem is configured', async () => {
    const config = parseConfig({ TABLE_NAME: 'table' });
    expect(config.OSV_ECOSYSTEMS).toEqual([]);
    expect(await makeHandler({ config, advisorySync: () => undefined })({}, undefined)).toEqual({ skipped: 'not configured' });
  });

  it('syncs every ecosystem, and fails the run after them when one failed', async () => {
    const config = parseConfig({ TABLE_NAME: 'table', OSV_SOURCE_URL: 'https://osv.example', OSV_ECOSYSTEMS: 'Go, npm ,PyPI' });
    expect(config.OSV_ECOSYSTEMS).toEqual(['Go', 'npm', 'PyPI']);
    const synced: string[] = [];
    const sync = {
      sync: async (ecosystem: string) => {
        synced.push(ecosystem);
        if (ecosystem === 'npm') throw new SourceError('https://osv.example/npm/modified_id.csv answered 503');
        return report(ecosystem);
      },
    } as unknown as AdvisorySync;
    await expect(makeHandler({ config, advisorySync: () => sync })({}, undefined)).rejects.toThrow('The advisory sync failed for npm');
    expect(synced).toEqual(['Go', 'npm', 'PyPI']);
  });

  it('refuses a source that is no http(s) URL at start', () => {
    expect(() => parseConfig({ TABLE_NAME: 'table', OSV_SOURCE_URL: 'ftp://osv.example' })).toThrow(/OSV_SOURCE_URL/);
  });
});
