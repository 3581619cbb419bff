/**
 * Filter criteria: a record reaches the function when it matches any of the mapping's patterns (none:
 * every record). A pattern the local matcher cannot evaluate is refused when the poller starts.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { matchesEventPattern, validateEventPattern } from '../event-pattern.ts';

export function filterCriteria(patterns: readonly Record<string, unknown>[], tableName: string): (record: DynamoDBRecord) => boolean {
  // A pattern the local matcher cannot evaluate would never match: refuse it rather than drop every record.
  patterns.forEach((pattern, index) => {
    const problems = validateEventPattern(pattern);
    if (problems.length > 0) throw new Error(`Filter pattern ${index} of the stream of ${tableName} is not valid here: ${problems.join(' ')}`);
  });
  return (record) => patterns.length === 0 || patterns.some((pattern) => matchesEventPattern(pattern, record as unknown as Record<string, unknown>));
}
