import { describe, expect, it } from 'vitest';
import { LIST_SHOWN, changeLines, shownValue } from '../../web/src/lib/audit-diff.ts';

describe('the audit page diff', () => {
  it('says what a create set and a delete removed, field names in words', () => {
    expect(changeLines('create', { license_expression: [null, 'mit'], is_deployed: [null, true] })).toEqual([
      { field: 'license expression', text: 'mit' },
      { field: 'is deployed', text: 'true' },
    ]);
    expect(changeLines('delete', { name: ['Toolkit', null] })).toEqual([{ field: 'name', text: 'Toolkit' }]);
  });

  it('shows an update as old → new, and a list by what it gained and lost', () => {
    expect(changeLines('update', { version: ['2.1', '2.2'], description: ['', 'Pads'] })).toEqual([
      { field: 'version', text: '2.1 → 2.2' },
      { field: 'description', text: '— → Pads' },
    ]);
    expect(changeLines('update', { depends_on: [['pkg:npm/a@1', 'pkg:npm/b@1'], ['pkg:npm/b@1', 'pkg:npm/c@1']] })).toEqual([
      { field: 'depends on', text: 'added pkg:npm/c@1; removed pkg:npm/a@1' },
    ]);
    expect(changeLines('update', { permissions: [['a', 'b'], ['b', 'a']] })).toEqual([{ field: 'permissions', text: 'reordered' }]);
  });

  it('cuts a long list to its first items and says how many more', () => {
    const purls = Array.from({ length: 12 }, (_, i) => `pkg:npm/p${i}@1`);
    expect(changeLines('create', { added_purls: [null, purls] })[0]!.text).toBe(`${purls.slice(0, LIST_SHOWN).join(', ')} and 7 more`);
    expect(shownValue([])).toBe('none');
    expect(shownValue('x'.repeat(200))).toHaveLength(120);
    expect(shownValue({ a: 1 })).toBe('{"a":1}');
  });
});
