import { describe, expect, it } from 'vitest';
import { inUseMessage } from '../../shared/domain/catalog.ts';

describe('in-use message', () => {
  it.each([
    ['license', { packages: 2, licenses: 1 }, 'This license is still used by 3 objects: 2 packages and 1 license.'],
    ['license', { packages: 1, licenses: 0 }, 'This license is still used by 1 object: 1 package.'],
    ['usage policy', { packages: 0, licenses: 4 }, 'This usage policy is still used by 4 objects: 4 licenses.'],
  ] as const)('%s %j', (what, uses, message) => {
    expect(inUseMessage(what, uses)).toBe(message);
  });
});
