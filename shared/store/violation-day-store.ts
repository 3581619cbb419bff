/**
 * A dataspace's daily violation counts (keys.violationDay, keys.violationTotals): written by the
 * stream router from the violation items' records, read by the policy portfolio. Each record's
 * counts go in one transaction with a marker of the record (keys.streamMarker), so a record
 * delivered twice counts once; the counts are ADDs, so records count the same in any order.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys.ts';
import { TABLE } from '../table.ts';
import { RULE_TYPES, type RuleType } from '../domain/policy-rules.ts';
import type { StoredViolationDay, ViolationDayChange, ViolationImage } from '../domain/portfolio.ts';
import { cancelledBecause, imageItem, transact, type StreamImage } from './dynamo.ts';

/** The marker's consumer name (its sort key) and how long it is kept: longer than a stream keeps a record (24 hours). */
const CONSUMER = 'violation-days';
const MARKER_TTL_SECONDS = 2 * 86_400;

/** The totals item's attribute holding a rule's products in active violation. */
const ruleAttribute = (ruleType: RuleType) => `active#${ruleType}`;

export interface ViolationTotals {
  readonly active: number;
  readonly byRule: Partial<Record<RuleType, number>>;
}

export class ViolationDayStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The violation a stream image is of; undefined for an image of another item. */
  static fromImage(image: StreamImage | undefined): ViolationImage | undefined {
    const item = imageItem(image, 'Violation');
    if (!item || !(RULE_TYPES as readonly string[]).includes(String(item.ruleType))) return undefined;
    return {
      dataspace: String(item.dataspace),
      ruleType: item.ruleType as RuleType,
      resolvedDate: (item.resolvedDate as string | null | undefined) ?? null,
      lastEvaluatedAt: String(item.lastEvaluatedAt),
    };
  }

  /** Counts the change of stream record `eventId`; false when that record was counted already. */
  async count(eventId: string, change: ViolationDayChange, now: Date): Promise<boolean> {
    try {
      await transact(this.doc, [
        {
          label: 'marker',
          item: {
            Put: {
              TableName: this.tableName,
              Item: { ...keys.streamMarker(eventId, CONSUMER), entity: 'StreamMarker', [TABLE.ttlAttribute]: Math.floor(now.getTime() / 1000) + MARKER_TTL_SECONDS },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        },
        {
          label: 'day',
          item: {
            Update: {
              TableName: this.tableName,
              Key: keys.violationDay(change.dataspace, change.date),
              UpdateExpression: 'SET entity = :entity, dataspace = :ds, #date = :date ADD detected :detected, resolved :resolved, active :active',
              ExpressionAttributeNames: { '#date': 'date' },
              ExpressionAttributeValues: { ':entity': 'ViolationDay', ':ds': change.dataspace, ':date': change.date, ':detected': change.detected, ':resolved': change.resolved, ':active': change.active },
            },
          },
        },
        {
          label: 'totals',
          item: {
            Update: {
              TableName: this.tableName,
              Key: keys.violationTotals(change.dataspace),
              UpdateExpression: 'SET entity = :entity, dataspace = :ds ADD active :active, #rule :active',
              ExpressionAttributeNames: { '#rule': ruleAttribute(change.ruleType) },
              ExpressionAttributeValues: { ':entity': 'ViolationDay', ':ds': change.dataspace, ':active': change.active },
            },
          },
        },
      ]);
      return true;
    } catch (error) {
      if (cancelledBecause(error, 'marker')) return false;
      throw error;
    }
  }

  /** The stored days from `from` (UTC date) on, and the totals: one Query of the dataspace's partition. */
  async read(dataspace: string, from: string): Promise<{ days: StoredViolationDay[]; totals: ViolationTotals }> {
    const range = keys.violationDaysFrom(dataspace, from);
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': range.PK, ':from': range.from, ':to': range.to },
          ExclusiveStartKey: start,
          ConsistentRead: true,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    const totalsItem = items.find((item) => item.SK === range.to);
    const days = items
      .filter((item) => item !== totalsItem)
      .map((item) => ({ date: String(item.date), detected: Number(item.detected ?? 0), resolved: Number(item.resolved ?? 0), active: Number(item.active ?? 0) }));
    const byRule: Partial<Record<RuleType, number>> = {};
    for (const type of RULE_TYPES) {
      const value = Number(totalsItem?.[ruleAttribute(type)] ?? 0);
      if (value > 0) byRule[type] = value;
    }
    return { days, totals: { active: Math.max(0, Number(totalsItem?.active ?? 0)), byRule } };
  }
}
