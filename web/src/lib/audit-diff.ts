/**
 * An audit record's `changes` as a person reads them: a create says what was set, a delete what was
 * there, an update old → new; for a list only what was added and removed; a long list its first items
 * and how many more. Pure: the Audit page renders the lines.
 */

export interface ChangeLine {
  /** The field in words ("depends on"). */
  readonly field: string;
  /** One value ("MIT", "2.1 → 2.2"), or, for a list changed, what was added and removed. */
  readonly text: string;
}

/** Items of a list shown before "and N more". */
export const LIST_SHOWN = 5;

const isList = (value: unknown): value is readonly unknown[] => Array.isArray(value);

/** A value in a few words: text as it is, a list as its items, anything else as JSON; long text cut. */
export function shownValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (isList(value)) return value.length === 0 ? 'none' : listed(value.map(shownValue));
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function listed(items: readonly string[]): string {
  const shown = items.slice(0, LIST_SHOWN).join(', ');
  return items.length > LIST_SHOWN ? `${shown} and ${items.length - LIST_SHOWN} more` : shown;
}

export function changeLines(action: string, changes: Readonly<Record<string, readonly [unknown, unknown]>>): ChangeLine[] {
  return Object.entries(changes).map(([name, [before, after]]) => {
    const field = name.replaceAll('_', ' ');
    if (action === 'create') return { field, text: shownValue(after) };
    if (action === 'delete') return { field, text: shownValue(before) };
    if (isList(before) && isList(after)) {
      const [old, now] = [new Set(before.map(shownValue)), new Set(after.map(shownValue))];
      const added = [...now].filter((item) => !old.has(item));
      const removed = [...old].filter((item) => !now.has(item));
      const parts = [...(added.length > 0 ? [`added ${listed(added)}`] : []), ...(removed.length > 0 ? [`removed ${listed(removed)}`] : [])];
      return { field, text: parts.length > 0 ? parts.join('; ') : 'reordered' };
    }
    return { field, text: `${shownValue(before)} → ${shownValue(after)}` };
  });
}
