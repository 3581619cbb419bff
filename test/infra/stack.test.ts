/**
 * Infrastructure assertions on the synthesized ComplianceStack: each test states an intent (this
 * function may only read the table, this queue ends in a dead-letter queue, every route reaches its
 * function) and checks it against the template, with shared/ as the expected values.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS, type FunctionDefinition, type FunctionName } from '../../shared/functions.ts';
import { EVENT_BUS, EVENT_SOURCES, QUEUES, type QueueName } from '../../shared/resources.ts';
import { DEFAULT_ROUTE_FUNCTION, ROUTES, gatewayRouteKeys } from '../../shared/routes/index.ts';
import { REQUEST_INDEX_ATTRIBUTES, TABLE, keyAttributes, projectionOf } from '../../shared/table.ts';
import { keys as tableKeys } from '../../shared/keys.ts';
import { acknowledgments, actionsOf, logicalId, nagFindings, roleStatements, synthesize, type Synthesized } from './helpers.ts';
import { AWS_RETRY_SCHEDULE } from '../../shared/domain/webhooks.ts';
import { FIRST_TRY_TIMEOUT_MS, POST_CONCURRENCY } from '../../shared/services/webhooks.ts';
import { DELIVERY_TIMEOUT_MS } from '../../shared/webhooks/sender.ts';

const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query'];

const functionEntries = Object.entries(FUNCTIONS) as [FunctionName, FunctionDefinition][];
/**
 * The only functions besides the catalog's: CDK's own handlers for the web console
 * (lib/constructs/web-console.ts), its BucketDeployment upload and the bucket's auto-delete provider.
 */
const CDK_HANDLER = /^(Custom(CDKBucketDeployment|S3AutoDeleteObjectsCustomResourceProvider)|BucketNotificationsHandler|AWSCDKTriggerCustomResourceProvider)/;
const queueEntries = Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][];

let synth: Synthesized;

beforeAll(() => {
  synth = synthesize();
});

describe('the table', () => {
  it('has the key schema, indexes and attribute types of shared/table.ts', () => {
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: TABLE.globalSecondaryIndexes.map((gsi) => ({
        IndexName: gsi.indexName,
        KeySchema: [
          { AttributeName: gsi.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi.sortKey, KeyType: 'RANGE' },
        ],
        Projection: projectionOf(gsi),
      })),
    });
    const [table] = Object.values(synth.template.findResources('AWS::DynamoDB::Table'));
    const definitions = table?.Properties.AttributeDefinitions as { AttributeName: string; AttributeType: string }[];
    expect(definitions.map((d) => d.AttributeName).sort()).toEqual(keyAttributes().sort());
    expect(definitions.every((d) => d.AttributeType === 'S')).toBe(true);
  });

  it('streams new and old images, has TTL, PITR and on-demand billing', () => {
    expect(TABLE.streamViewType).toBe('NEW_AND_OLD_IMAGES');
    synth.template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  it('survives stack deletion and replacement and has deletion protection', () => {
    synth.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });

  it('gives the request ordering indexes INCLUDE of the list attributes, or ALL for a table made by an earlier version', () => {
    const projections = (template: typeof synth.template) => {
      const [table] = Object.values(template.findResources('AWS::DynamoDB::Table'));
      const indexes = table?.Properties.GlobalSecondaryIndexes as { IndexName: string; Projection: { ProjectionType: string; NonKeyAttributes?: string[] } }[];
      return Object.fromEntries(indexes.map((index) => [index.IndexName, index.Projection]));
    };
    const ordering = Object.values(tableKeys.requestOrderingIndex);
    const current = projections(synth.template);
    for (const name of ordering) expect(current[name]).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: [...REQUEST_INDEX_ATTRIBUTES] });
    // The 100 non-key attributes DynamoDB allows a table's indexes in all.
    expect(Object.values(current).reduce((sum, projection) => sum + (projection.NonKeyAttributes?.length ?? 0), 0)).toBeLessThanOrEqual(100);

    const earlier = projections(synthesize({}, { context: { requestIndexProjection: 'ALL' } }).template);
    for (const name of ordering) expect(earlier[name]).toEqual({ ProjectionType: 'ALL' });
    // Every other index is the same either way.
    for (const name of Object.keys(current).filter((name) => !ordering.includes(name as never))) expect(earlier[name]).toEqual(current[name]);
    expect(() => synthesize({}, { context: { requestIndexProjection: 'SOME' } })).toThrow(/requestIndexProjection/);
  });
});

describe('the HTTP API', () => {
  it('has exactly one route per route-table entry, a HEAD route per GET route, plus $default', () => {
    const keys = Object.values(synth.template.findResources('AWS::ApiGatewayV2::Route')).map((route) => route.Properties.RouteKey as string);
    expect(keys.sort()).toEqual([...ROUTES.flatMap(gatewayRouteKeys), '$default'].sort());
    expect(keys.filter((key) => key.startsWith('HEAD ')).length).toBe(ROUTES.filter((route) => route.method === 'GET').length);
  });

  it('sends every route to the function the route table names, and $default to DEFAULT_ROUTE_FUNCTION', () => {
    const integrations = synth.template.findResources('AWS::ApiGatewayV2::Integration');
    const routes = Object.values(synth.template.findResources('AWS::ApiGatewayV2::Route'));
    const functionOf = (routeKeyValue: string): string => {
      const route = routes.find((r) => r.Properties.RouteKey === routeKeyValue);
      const target = JSON.stringify(route?.Properties.Target);
      const integrationId = Object.keys(integrations).find((id) => target.includes(`"Ref":"${id}"`));
      const uri = integrations[integrationId ?? '']?.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] };
      return uri['Fn::GetAtt'][0];
    };
    const functionId = (name: FunctionName) => logicalId(synth.stack, synth.stack.functions[name].function);
    for (const route of ROUTES) {
      for (const key of gatewayRouteKeys(route)) expect(functionOf(key), key).toBe(functionId(route.function));
    }
    expect(functionOf('$default')).toBe(functionId(DEFAULT_ROUTE_FUNCTION));
    // A request's comments, a page at a time, are served by the requests function, as the request is.
    expect(functionOf('GET /api/v2/requests/{uuid}/comments')).toBe(functionId('requests'));
    synth.template.allResourcesProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  it('serves the API keys routes from the api-keys function, which may read and write the table (keys are made and revoked in transactions)', () => {
    const keyRoutes = ROUTES.filter((route) => route.path.startsWith('/api/v2/api_keys/'));
    expect(keyRoutes.map((route) => `${route.method} ${route.path}`).sort()).toEqual([
      'DELETE /api/v2/api_keys/{uuid}/',
      'GET /api/v2/api_keys/',
      'GET /api/v2/api_keys/{uuid}/',
      'POST /api/v2/api_keys/',
    ]);
    for (const route of keyRoutes) expect(route.function).toBe('api-keys');
    const actions = actionsOf(roleStatements(synth, synth.stack.functions['api-keys']).filter((statement) => !statement.Condition));
    expect([...actions]).toEqual(expect.arrayContaining([...READ_ACTIONS, ...WRITE_ACTIONS, 'dynamodb:ConditionCheckItem']));
    // No queue, no bus, no bucket: the table, its logs and traces.
    expect([...actions].filter((action) => !/^(dynamodb|logs|xray):/.test(action))).toEqual([]);
  });

  it('lets API Gateway invoke each API function through one permission, for this API only', () => {
    const resources = synth.template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>;
    const permissions = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Permission' && r.Properties.Principal === 'apigateway.amazonaws.com');
    const served = new Set<string>([...ROUTES.map((route) => route.function), DEFAULT_ROUTE_FUNCTION]);
    expect(permissions).toHaveLength(served.size);
    const apiId = logicalId(synth.stack, synth.stack.httpApi.api);
    for (const permission of permissions) expect(JSON.stringify(permission.Properties.SourceArn)).toContain(`{"Ref":"${apiId}"},"/*/*/*"`);
  });

  it("keeps the stack well under CloudFormation's 500 resources", () => {
    // One permission per route had put it at 490; a per-route resource must not bring it back. A function
    // with its own queue is about 16 (function, role, policy, logs, mapping, queue, DLQ, their policies,
    // alarms): 436 with the license re-resolver. Past 450, move a part into a nested stack.
    expect(Object.keys(synth.template.toJSON().Resources).length).toBeLessThanOrEqual(450);
  });

  it('has no API Gateway authorizer: the functions check the API key themselves', () => {
    for (const route of Object.values(synth.template.findResources('AWS::ApiGatewayV2::Route'))) {
      expect(route.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
    }
    expect(ROUTES.every((route) => route.auth === 'api-key')).toBe(true);
    synth.template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
  });

  it('auto-deploys one $default stage with throttling and access logs', () => {
    synth.template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    synth.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 10_000, ThrottlingBurstLimit: 5_000 },
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [logicalId(synth.stack, synth.stack.httpApi.accessLogs), 'Arn'] },
        Format: Match.stringLikeRegexp('\\$context\\.requestId'),
      },
    });
  });
});

describe('the data migration', () => {
  it("invokes the migrate function's current version, without waiting, in each deployment that changes it, after the table and every other function", () => {
    const triggers = Object.values(synth.template.findResources('Custom::Trigger'));
    expect(triggers).toHaveLength(1);
    const [trigger] = triggers as [{ Properties: Record<string, unknown>; DependsOn: string[] }];
    const migrateId = logicalId(synth.stack, synth.stack.functions.migrate.function);
    expect(trigger.Properties).toMatchObject({ InvocationType: 'Event', ExecuteOnHandlerChange: true });
    expect(JSON.stringify(trigger.Properties.HandlerArn)).toMatch(new RegExp(`^\\{"Ref":"${migrateId.replace(/[0-9A-F]{8}$/, '')}CurrentVersion`));
    const others = functionEntries.filter(([name]) => name !== 'migrate').map(([name]) => logicalId(synth.stack, synth.stack.functions[name].function));
    expect(trigger.DependsOn).toEqual(expect.arrayContaining([logicalId(synth.stack, synth.stack.table), ...others]));
    expect(trigger.DependsOn).not.toContain(migrateId);
  });
});

describe('the functions', () => {
  it('are one per catalog entry, each on nodejs22.x, arm64, with active tracing and its own log group', () => {
    const ids = Object.keys(synth.template.findResources('AWS::Lambda::Function'));
    expect(ids.filter((id) => !CDK_HANDLER.test(id))).toHaveLength(functionEntries.length);
    expect(ids.filter((id) => CDK_HANDLER.test(id))).toHaveLength(4);
    for (const [name, definition] of functionEntries) {
      const fn = synth.stack.functions[name];
      synth.template.hasResourceProperties('AWS::Lambda::Function', {
        Description: definition.description,
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: definition.memoryMb,
        Timeout: definition.timeoutSeconds,
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: logicalId(synth.stack, fn.logGroup) } },
        Environment: {
          Variables: Match.objectLike({ NODE_OPTIONS: '--enable-source-maps', POWERTOOLS_SERVICE_NAME: EVENT_BUS.source }),
        },
      });
    }
    synth.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it("run under roles without AWS-managed policies (all but the roles of CDK's auto-delete and trigger providers and S3 notifications handler)", () => {
    for (const [id, role] of Object.entries(synth.template.findResources('AWS::IAM::Role'))) {
      if (id.startsWith('CustomS3AutoDeleteObjectsCustomResourceProviderRole') || id.startsWith('AWSCDKTriggerCustomResourceProviderCustomResourceProviderRole')) {
        // aws-cdk-lib gives them this policy and no way to change it (docs/security.md, "Infrastructure").
        expect(role.Properties.ManagedPolicyArns).toEqual([
          { 'Fn::Sub': 'arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole' },
        ]);
      } else if (id.startsWith('BucketNotificationsHandler')) {
        // The same, for the handler that sets the upload bucket's notification (added even to a role of ours).
        expect(role.Properties.ManagedPolicyArns).toEqual([
          { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']] },
        ]);
      } else {
        expect(role.Properties.ManagedPolicyArns, id).toBeUndefined();
      }
    }
  });

  describe.each(functionEntries)('%s', (name, definition) => {
    const environment = () => {
      const id = logicalId(synth.stack, synth.stack.functions[name].function);
      return synth.template.toJSON().Resources[id].Properties.Environment.Variables as Record<string, unknown>;
    };

    /** A table-stream consumer also reads the stream and may send to its on-failure queue. */
    const readsStream = EVENT_SOURCES.some((source) => source.kind === 'table-stream' && source.function === name);
    const STREAM_ACTIONS = ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'];

    it(`has exactly the table access of the catalog (${definition.table})`, () => {
      const actions = actionsOf(roleStatements(synth, synth.stack.functions[name]));
      const dynamo = [...actions].filter((action) => action.startsWith('dynamodb:') && !(readsStream && STREAM_ACTIONS.includes(action)));
      if (readsStream) expect([...actions]).toEqual(expect.arrayContaining(STREAM_ACTIONS));
      if (definition.table === 'none') expect(dynamo).toEqual([]);
      else expect(dynamo).toEqual(expect.arrayContaining(READ_ACTIONS));
      // A read-only API function may update its callers' rate-limit and failed-authentication items and API keys (last use), and nothing else;
      // the waiver expiry job (updatesWaivers) the items of products' partitions.
      const statements = roleStatements(synth, synth.stack.functions[name]);
      const unconditional = actionsOf(statements.filter((statement) => !statement.Condition));
      const writes = WRITE_ACTIONS.filter((action) => unconditional.has(action));
      expect(writes).toEqual(definition.table === 'read-write' ? WRITE_ACTIONS : []);
      const allowedUpdates = [
        { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*', 'AUTHFAIL#*', 'APIKEY#*'] } },
        ...('updatesWaivers' in definition ? [{ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PRODUCT#*'] } }] : []),
      ];
      for (const statement of statements.filter((st) => st.Condition)) {
        if (actionsOf([statement]).has('dynamodb:UpdateItem')) expect(allowedUpdates).toContainEqual(statement.Condition);
      }
      expect(dynamo.some((action) => action.includes('*'))).toBe(false);
      expect('TABLE_NAME' in environment()).toBe(definition.table !== 'none');
    });

    it('may send to exactly the queues it lists, with their URLs in the environment', () => {
      const statements = roleStatements(synth, synth.stack.functions[name]).filter((s) => actionsOf([s]).has('sqs:SendMessage'));
      const targets = statements.map((s) => JSON.stringify(s.Resource)).filter((target) => !target.includes('StreamFailures'));
      expect(targets.sort()).toEqual(
        definition.sendsTo.map((queue) => JSON.stringify({ 'Fn::GetAtt': [logicalId(synth.stack, synth.stack.queues[queue].queue), 'Arn'] })).sort(),
      );
      // Its stream's on-failure queue, and only that one, besides the catalog's.
      const failureTargets = statements.map((s) => JSON.stringify(s.Resource)).filter((target) => target.includes('StreamFailures'));
      expect(failureTargets.length).toBe(readsStream ? 1 : 0);
      for (const [queueName, queue] of queueEntries) {
        expect(queue.urlEnvVar in environment()).toBe((definition.sendsTo as readonly string[]).includes(queueName));
      }
    });

    it(`${definition.publishesEvents ? 'may' : 'may not'} put events on the bus`, () => {
      const actions = actionsOf(roleStatements(synth, synth.stack.functions[name]));
      expect(actions.has('events:PutEvents')).toBe(definition.publishesEvents);
      expect('EVENT_BUS_NAME' in environment()).toBe(definition.publishesEvents);
    });
  });
});

describe('the queues', () => {
  it.each(queueEntries)('%s ends in its dead-letter queue after maxReceiveCount receives', (name, definition) => {
    const { queue, deadLetterQueue } = synth.stack.queues[name];
    const dlqId = logicalId(synth.stack, deadLetterQueue);
    synth.template.hasResource('AWS::SQS::Queue', {
      Properties: {
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: definition.maxReceiveCount },
        VisibilityTimeout: definition.visibilityTimeoutSeconds,
        MessageRetentionPeriod: definition.retentionDays * 86_400,
        SqsManagedSseEnabled: true,
      },
    });
    expect(synth.template.toJSON().Resources[logicalId(synth.stack, queue)].Properties.RedrivePolicy).toBeDefined();
    synth.template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: definition.deadLetterRetentionDays * 86_400,
      SqsManagedSseEnabled: true,
    });
  });

  it('refuse every request without TLS', () => {
    const queueIds = Object.keys(synth.template.findResources('AWS::SQS::Queue'));
    const policies = Object.values(synth.template.findResources('AWS::SQS::QueuePolicy'));
    for (const id of queueIds) {
      const policy = policies.find((p) => JSON.stringify(p.Properties.Queues) === JSON.stringify([{ Ref: id }]));
      expect(policy?.Properties.PolicyDocument.Statement, id).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      );
    }
  });

  it.each(queueEntries)('%s has an alarm on messages in its dead-letter queue', (name) => {
    const dlqId = logicalId(synth.stack, synth.stack.queues[name].deadLetterQueue);
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms notify no one when no alarm topic is given', () => {
    for (const alarm of Object.values(synth.template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
    }
  });
});

describe('the event bus and outputs', () => {
  it('creates the bus, named after the stack', () => {
    synth.template.hasResourceProperties('AWS::Events::EventBus', { Name: `ComplianceTest-${EVENT_BUS.localName}` });
  });

  it('outputs what the README and the operators need', () => {
    const outputs = Object.keys(synth.template.toJSON().Outputs);
    expect(outputs).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'EventBusName', 'EvaluationQueueUrl', 'EvaluationDlqUrl']));
  });
});

describe('cdk-nag AWS Solutions', () => {
  it('reports no unacknowledged error or warning', () => {
    expect(nagFindings(synth.stack)).toEqual([]);
  });

  it('finds what it is meant to find (the check above can fail)', () => {
    const stack = new Stack(new App(), 'Bare');
    new sqs.Queue(stack, 'Queue');
    expect(nagFindings(stack).join('\n')).toMatch(/AwsSolutions-SQS3 at Bare\/Queue/);
  });

  it('gives every acknowledgment a reason', () => {
    const acks = acknowledgments(synth.stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.id, ack.path).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);
    }
  });
});

describe('the evaluation pipeline', () => {
  type Mapping = { Properties: Record<string, any> & { FunctionName: { Ref: string } } };
  const mappings = () => Object.values(synth.template.findResources('AWS::Lambda::EventSourceMapping')) as Mapping[];
  const functionOf = (mapping: Mapping) => mapping.Properties.FunctionName.Ref;
  const idOf = (name: FunctionName) => logicalId(synth.stack, synth.stack.functions[name].function);

  it('feeds the table stream to the router with filter criteria on the evaluated and audited entities, bisect, retries and a DLQ', () => {
    const router = mappings().find((m) => functionOf(m) === idOf('stream-router'))!;
    expect(router.Properties).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: expect.anything() } },
    });
    const patterns = (router.Properties.FilterCriteria.Filters as { Pattern: string }[]).map((f) => JSON.parse(f.Pattern));
    // Each also leaves out the rate limiters' items (test/infra/stream-filters.test.ts).
    const notLimiters = { Keys: { SK: { S: [{ 'anything-but': ['RATE', 'AUTHFAIL'] }] } } };
    expect(patterns).toContainEqual({ dynamodb: { NewImage: { entity: { S: expect.arrayContaining(['Product', 'ProductPackage', 'Package', 'PolicyConfig']) } }, ...notLimiters } });
    expect(patterns).toContainEqual({ dynamodb: { OldImage: { entity: { S: expect.arrayContaining(['Product', 'ProductPackage']) } }, ...notLimiters } });
    // The audit trail's: webhooks, keys, requests, comments and permissions are audited, never evaluated.
    expect(patterns).toContainEqual({ dynamodb: { OldImage: { entity: { S: expect.arrayContaining(['Webhook', 'ApiKey', 'Request', 'RequestComment', 'ProductGrant']) } }, ...notLimiters } });
  });

  it('feeds only outbox events, request writes and waiver writes to the publisher, which may put events on the bus', () => {
    const publisher = mappings().find((m) => functionOf(m) === idOf('outbox-publisher'))!;
    const patterns = (publisher.Properties.FilterCriteria.Filters as { Pattern: string }[]).map((f) => JSON.parse(f.Pattern));
    const notLimiters = { Keys: { SK: { S: [{ 'anything-but': ['RATE', 'AUTHFAIL'] }] } } };
    expect(patterns).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['OutboxEvent', 'RequestComment'] } }, ...notLimiters } },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { entity: { S: ['Request', 'PolicyWaiver'] } }, ...notLimiters } },
    ]);
    const actions = actionsOf(roleStatements(synth, synth.stack.functions['outbox-publisher']));
    expect(actions.has('events:PutEvents')).toBe(true);
  });

  it('feeds the evaluation queue to the evaluator, reporting partial batch failures', () => {
    const evaluator = mappings().find((m) => functionOf(m) === idOf('evaluator'))!;
    expect(evaluator.Properties).toMatchObject({ BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(JSON.stringify(evaluator.Properties.EventSourceArn)).toContain(logicalId(synth.stack, synth.stack.queues.evaluation.queue));
  });

  it('sizes the evaluator for large products: 1,024 MB, 300 s, a queue that hides a message six timeouts long, and leave to hand a batch back', () => {
    const resources = synth.template.toJSON().Resources;
    expect(resources[idOf('evaluator')].Properties).toMatchObject({ MemorySize: 1024, Timeout: 300 });
    const queue = resources[logicalId(synth.stack, synth.stack.queues.evaluation.queue)];
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * 300);
    // The products a batch cannot evaluate in time, and the pages of a dataspace, go back onto its own queue.
    expect(actionsOf(roleStatements(synth, synth.stack.functions.evaluator)).has('sqs:SendMessage')).toBe(true);
  });

  const publicBaseUrlOf = (of: Synthesized, name: FunctionName): unknown =>
    (of.template.toJSON().Resources[logicalId(of.stack, of.stack.functions[name].function)].Properties.Environment.Variables as Record<string, unknown>).PUBLIC_BASE_URL;

  it('gives every API function, and those that build event URLs, the public origin: the console distribution, whose /api/* is the API', () => {
    const distribution = logicalId(synth.stack, synth.stack.webConsole!.distribution);
    const origin = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distribution, 'DomainName'] }]] };
    const withUrl = functionEntries.filter(([name]) => publicBaseUrlOf(synth, name) !== undefined).map(([name]) => name);
    // The API functions build api_url, next and previous on it (never on a forwarded header); the evaluator
    // names products in policy events, the outbox publisher writes requests into request events.
    const apiFunctions = new Set(ROUTES.map((route) => route.function));
    expect(withUrl.sort()).toEqual([...new Set([...apiFunctions, 'evaluator', 'outbox-publisher'])].sort());
    for (const name of withUrl) expect(publicBaseUrlOf(synth, name), name).toEqual(origin);
  });

  it("without the console, gives them the API's own endpoint, and outputs it", () => {
    const bare = synthesize({ webConsole: false });
    expect(bare.stack.webConsole).toBeUndefined();
    expect(bare.template.findResources('AWS::CloudFront::Distribution')).toEqual({});
    const endpoint = { 'Fn::GetAtt': [logicalId(bare.stack, bare.stack.httpApi.api), 'ApiEndpoint'] };
    for (const name of new Set(ROUTES.map((route) => route.function))) expect(publicBaseUrlOf(bare, name), name).toEqual(endpoint);
    bare.template.hasOutput('PublicBaseUrl', { Value: endpoint });
  });


  it('fans out and retries deliveries in batches, several invocations at once, and gives up after the schedule into an alarmed DLQ', () => {
    const deliveries = synth.stack.queues.webhookDeliveries;
    // The fan-out makes the first attempt; the queue the other ones of the schedule.
    expect(QUEUES.webhookDeliveries.maxReceiveCount).toBe(AWS_RETRY_SCHEDULE.maxAttempts - 1);
    synth.template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(synth.stack, deliveries.deadLetterQueue), 'Arn'] }, maxReceiveCount: QUEUES.webhookDeliveries.maxReceiveCount },
    });
    const alarms = Object.values(synth.template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.some((alarm) => JSON.stringify(alarm.Properties.Dimensions).includes(logicalId(synth.stack, deliveries.deadLetterQueue)))).toBe(true);
    const mappingOf = (name: 'webhook-fanout' | 'webhook-delivery') =>
      Object.values(synth.template.findResources('AWS::Lambda::EventSourceMapping')).find(
        (m) => m.Properties.FunctionName.Ref === logicalId(synth.stack, synth.stack.functions[name].function),
      )!;
    // Batches of ten, several invocations at once (each handles its messages side by side).
    expect(mappingOf('webhook-fanout').Properties).toMatchObject({ BatchSize: 10, ScalingConfig: { MaximumConcurrency: 50 }, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(mappingOf('webhook-delivery').Properties).toMatchObject({ BatchSize: 10, ScalingConfig: { MaximumConcurrency: 10 }, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    // A fan-out batch to 100 subscriptions an event, every receiver slow, fits its function's timeout
    // with room for the log; a retry batch waits the full delivery timeout once, all at once.
    const fanOutWorstSeconds = 10 * Math.ceil(100 / POST_CONCURRENCY) * (FIRST_TRY_TIMEOUT_MS / 1000);
    expect(fanOutWorstSeconds).toBeLessThanOrEqual(FUNCTIONS['webhook-fanout'].timeoutSeconds * 0.75);
    expect(DELIVERY_TIMEOUT_MS / 1000).toBeLessThanOrEqual(FUNCTIONS['webhook-delivery'].timeoutSeconds / 2);
    // It may move its own messages back with a backoff.
    const actions = actionsOf(roleStatements(synth, synth.stack.functions['webhook-delivery']));
    expect(actions.has('sqs:ChangeMessageVisibility')).toBe(true);
  });

  it('never allows private webhook targets on AWS', () => {
    const resources = synth.template.toJSON().Resources as Record<string, { Type: string; Properties: { Environment?: { Variables?: Record<string, unknown> } } }>;
    for (const resource of Object.values(resources)) {
      if (resource.Type === 'AWS::Lambda::Function') expect(resource.Properties.Environment?.Variables?.ALLOW_PRIVATE_WEBHOOK_TARGETS).toBeUndefined();
    }
  });
});

describe('published advisories', () => {
  const resourcesOf = (type: string, template = synth.template) => Object.values(template.toJSON().Resources as Record<string, { Type: string; Properties: any }>).filter((resource) => resource.Type === type);
  const envOf = (name: FunctionName, template = synth.template) => template.toJSON().Resources[logicalId(synth.stack, synth.stack.functions[name].function)].Properties.Environment.Variables;

  it('feeds the advisory link queue to the linker, which the stream router sends to', () => {
    const mapping = resourcesOf('AWS::Lambda::EventSourceMapping').find((m) => JSON.stringify(m.Properties.FunctionName).includes(logicalId(synth.stack, synth.stack.functions['advisory-linker'].function)))!;
    expect(mapping.Properties).toMatchObject({ BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(JSON.stringify(mapping.Properties.EventSourceArn)).toContain(logicalId(synth.stack, synth.stack.queues.advisoryLinks.queue));
    expect(envOf('stream-router').ADVISORY_LINKS_QUEUE_URL).toBeDefined();
  });

  it('feeds the license re-resolution queue to the re-resolver one mapping at a time, which may write the table; the stream router sends to it', () => {
    const reresolver = synth.stack.functions['license-reresolver'];
    const mapping = resourcesOf('AWS::Lambda::EventSourceMapping').find((m) => JSON.stringify(m.Properties.FunctionName).includes(logicalId(synth.stack, reresolver.function)))!;
    expect(mapping.Properties).toMatchObject({ BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(JSON.stringify(mapping.Properties.EventSourceArn)).toContain(logicalId(synth.stack, synth.stack.queues.licenseReresolution.queue));
    const queue = synth.template.toJSON().Resources[logicalId(synth.stack, synth.stack.queues.licenseReresolution.queue)].Properties;
    expect(queue).toMatchObject({ VisibilityTimeout: 1800, RedrivePolicy: { maxReceiveCount: 5 } });
    expect([...actionsOf(roleStatements(synth, reresolver))]).toEqual(expect.arrayContaining(['dynamodb:UpdateItem', 'dynamodb:Query']));
    expect(envOf('stream-router').LICENSE_RERESOLUTION_QUEUE_URL).toBeDefined();
    expect(JSON.stringify(roleStatements(synth, synth.stack.functions['stream-router']).filter((st) => actionsOf([st]).has('sqs:SendMessage')))).toContain(logicalId(synth.stack, synth.stack.queues.licenseReresolution.queue));
  });

  it("syncs daily from OSV's bucket on EventBridge Scheduler, with no retry, the ecosystems in the function's environment", () => {
    const [schedule] = resourcesOf('AWS::Scheduler::Schedule');
    expect(schedule!.Properties).toMatchObject({ ScheduleExpression: 'rate(1 day)', State: 'ENABLED', Target: { RetryPolicy: { MaximumRetryAttempts: 0 } } });
    expect(JSON.stringify(schedule!.Properties.Target.Arn)).toContain(logicalId(synth.stack, synth.stack.functions['advisory-sync'].function));
    expect(envOf('advisory-sync')).toMatchObject({ OSV_SOURCE_URL: 'https://osv-vulnerabilities.storage.googleapis.com', OSV_ECOSYSTEMS: 'npm,PyPI,Maven,Go,crates.io,NuGet,RubyGems,Packagist' });
    // Room in /tmp for an ecosystem's whole archive, 15 minutes to load it.
    expect(synth.template.toJSON().Resources[logicalId(synth.stack, synth.stack.functions['advisory-sync'].function)].Properties).toMatchObject({ EphemeralStorage: { Size: 4096 }, Timeout: 900 });
  });

  it('takes the ecosystems, the schedule and a mirror from the CDK context, and refuses what they cannot be', () => {
    const custom = synthesize({}, { context: { osvEcosystems: 'Go, PyPI', osvSyncSchedule: 'cron(0 3 * * ? *)', osvSourceUrl: 'https://osv-mirror.internal.example' } });
    expect(resourcesOf('AWS::Scheduler::Schedule', custom.template)[0]!.Properties.ScheduleExpression).toBe('cron(0 3 * * ? *)');
    expect(custom.template.toJSON().Resources[logicalId(custom.stack, custom.stack.functions['advisory-sync'].function)].Properties.Environment.Variables).toMatchObject({
      OSV_SOURCE_URL: 'https://osv-mirror.internal.example',
      OSV_ECOSYSTEMS: 'Go,PyPI',
    });
    expect(() => synthesize({}, { context: { osvSyncSchedule: 'daily' } })).toThrow(/osvSyncSchedule/);
    expect(() => synthesize({}, { context: { osvSourceUrl: 'http://osv.example' } })).toThrow(/osvSourceUrl/);
  });
});
