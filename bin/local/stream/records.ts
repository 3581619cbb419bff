/**
 * Record shaping: a record of the DynamoDB Streams API as Lambda hands it to a function in a
 * DynamoDBStreamEvent (epoch seconds, binary values base64-encoded, the region and the stream's ARN).
 */
import type { AttributeValue as StreamAttributeValue, _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

export function lambdaRecord(raw: StreamRecord, eventSourceARN: string, region: string): DynamoDBRecord {
  const stream = raw.dynamodb ?? {};
  const record: DynamoDBRecord = {
    eventID: raw.eventID,
    eventName: raw.eventName,
    eventVersion: raw.eventVersion ?? '1.1',
    eventSource: raw.eventSource ?? 'aws:dynamodb',
    awsRegion: region,
    dynamodb: {
      ...(stream.ApproximateCreationDateTime ? { ApproximateCreationDateTime: stream.ApproximateCreationDateTime.getTime() / 1000 } : {}),
      ...(stream.Keys ? { Keys: lambdaImage(stream.Keys) } : {}),
      ...(stream.NewImage ? { NewImage: lambdaImage(stream.NewImage) } : {}),
      ...(stream.OldImage ? { OldImage: lambdaImage(stream.OldImage) } : {}),
      SequenceNumber: stream.SequenceNumber,
      SizeBytes: stream.SizeBytes,
      StreamViewType: stream.StreamViewType,
    },
    eventSourceARN,
  };
  // TTL deletions carry the service principal that removed the item.
  if (raw.userIdentity) record.userIdentity = { type: raw.userIdentity.Type, principalId: raw.userIdentity.PrincipalId };
  return record;
}

function lambdaImage(image: Record<string, StreamAttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, lambdaAttributeValue(value)]));
}

function lambdaAttributeValue(value: StreamAttributeValue): AttributeValue {
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(lambdaAttributeValue) };
  if (value.M !== undefined) return { M: lambdaImage(value.M) };
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  // The Streams client deserialises an empty map ({"M": {}}) to an object with no member at all.
  if (Object.keys(value).length === 0) return { M: {} };
  throw new Error(`Unknown attribute value type in stream record: ${JSON.stringify(value)}`);
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** Sequence numbers are decimal strings of up to 40 digits. */
export function compareSequenceNumbers(a: string, b: string): number {
  const difference = BigInt(a) - BigInt(b);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}
