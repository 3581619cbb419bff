/**
 * `?search=` on a list Query: the attributes a searchable item is written with, and the filter that
 * finds it. Each item carries `searchText`, the folded copy of its search fields (shared/domain/search.ts),
 * and `searchFields`, the list of fields that copy was made of. DynamoDB keeps the items whose copy
 * contains every term; an item without a copy of the current fields (written before search existed,
 * or before a field was added to the list) is kept too and judged in memory from its fields, so it is
 * found exactly like the others, and gains its copy at its next write.
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { objectMatches, searchTextOf } from '../domain/search.ts';
import type { Recheck } from './dynamo.ts';

/**
 * The attributes that make an item searchable by `fields`, from the item's own attributes of those
 * names: spread into the item wherever it is built, so every write path stores them.
 */
export function searchAttributes(fields: readonly string[], item: object): { searchText: string; searchFields: string } {
  return { searchText: searchTextOf(item, fields), searchFields: fields.join(',') };
}

/**
 * Adds the search of `terms` over `fields` to a Query: the condition joins the input's filter with AND,
 * and the answer is the recheck to apply to what DynamoDB returns (queryOffset and queryCount take it).
 * No terms: the input is left as it is and there is nothing to recheck.
 */
export function addSearch(input: QueryCommandInput, fields: readonly string[], terms: readonly string[]): Recheck | undefined {
  if (terms.length === 0) return undefined;
  const names: Record<string, string> = { '#searchText': 'searchText', '#searchFields': 'searchFields' };
  const values: Record<string, unknown> = { ':searchFields': fields.join(',') };
  const contains = terms.map((term, i) => {
    values[`:search${i}`] = term;
    return `contains(#searchText, :search${i})`;
  });
  const current = `(#searchFields = :searchFields AND ${contains.join(' AND ')})`;
  const legacy = '(attribute_not_exists(#searchFields) OR #searchFields <> :searchFields)';
  const condition = `(${current} OR ${legacy})`;
  input.FilterExpression = input.FilterExpression ? `${conjunct(input.FilterExpression)} AND ${condition}` : condition;
  input.ExpressionAttributeNames = { ...input.ExpressionAttributeNames, ...names };
  input.ExpressionAttributeValues = { ...input.ExpressionAttributeValues, ...values };
  // The item's fields decide, whatever copy it carries.
  return { keep: (item) => objectMatches(item, fields, terms), attributes: [...fields] };
}

/**
 * The search of `terms` over `fields`, judged in memory only: for an index that carries the fields but
 * not the search copy (the request list's, shared/table.ts). DynamoDB charges a filtered read as an
 * unfiltered one, so this reads the same units; only more items travel back. No terms: nothing to check.
 */
export function memorySearch(fields: readonly string[], terms: readonly string[]): Recheck | undefined {
  if (terms.length === 0) return undefined;
  return { keep: (item) => objectMatches(item, fields, terms), attributes: [...fields] };
}

/**
 * An expression as one operand of AND: parenthesized only when an OR sits at its top level, because
 * DynamoDB refuses redundant parentheses (`((a OR b))`).
 */
function conjunct(expression: string): string {
  let depth = 0;
  for (let i = 0; i < expression.length; i++) {
    const char = expression[i];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (depth === 0 && expression.startsWith(' OR ', i)) return `(${expression})`;
  }
  return expression;
}
