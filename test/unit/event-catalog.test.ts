import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES, eventJsonSchema, type EventType } from '../../shared/events/catalog.ts';
import { violationDetected, violationResolved } from '../../shared/events/policy-events.ts';

const product = { uuid: '6f1c0d7e-0000-4000-8000-000000000001', name: 'Toolkit', version: '2.1', api_url: 'https://api.example.com/api/v2/products/6f1c0d7e-0000-4000-8000-000000000001/' };
const at = '2026-11-21T23:50:00.000+00:00';

describe('the event catalog', () => {
  it.each(Object.keys(EVENT_TYPES) as EventType[])('docs/events/%s.schema.json is generated from the schema (npm run docs:events)', (type) => {
    const committed = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'events', `${type}.schema.json`), 'utf8');
    expect(committed).toBe(eventJsonSchema(type));
  });

  it('builds events that their schemas accept, with the Slack-friendly text', () => {
    const detected = violationDetected('0b0c0d0e-0000-4000-8000-000000000002', at, product, 'acme', [
      { ruleType: 'license_policy_error', count: 3, reactivated: false },
      { ruleType: 'license_coverage_gap', count: 1, reactivated: true },
    ]);
    expect(EVENT_TYPES['policy.violation_detected'].parse(detected)).toEqual(detected);
    expect(detected.data.text).toBe('Policy violations detected for Toolkit 2.1\n• License Policy Error: 3 packages\n• License Coverage Gap: 1 package');
    const resolved = violationResolved('0b0c0d0e-0000-4000-8000-000000000003', at, product, 'acme', [{ ruleType: 'license_policy_error', count: 3 }]);
    expect(EVENT_TYPES['policy.violation_resolved'].parse(resolved)).toEqual(resolved);
    expect(resolved.data).toMatchObject({ resolved_count: 1, text: 'Policy violations resolved for Toolkit 2.1\n• License Policy Error' });
  });

  it('refuses an event whose data breaks the contract', () => {
    const detected = violationDetected('0b0c0d0e-0000-4000-8000-000000000004', at, product, 'acme', [{ ruleType: 'license_policy_error', count: 1, reactivated: false }]);
    expect(EVENT_TYPES['policy.violation_detected'].safeParse({ ...detected, version: 1 }).success).toBe(false);
    expect(EVENT_TYPES['policy.violation_detected'].safeParse({ ...detected, data: { ...detected.data, count: 0 } }).success).toBe(false);
  });
});
