/**
 * The service's API Gateway HTTP API: exactly the routes of shared/routes.ts (the same table the local
 * gateway serves), each GET route also as HEAD (an HTTP API does not answer HEAD by itself), a
 * $default route for everything else, and one auto-deployed $default stage with
 * access logs and throttling.
 */
import { Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionName } from '../../shared/functions.ts';
import { DEFAULT_ROUTE_FUNCTION, ROUTES, gatewayPath, type Route } from '../../shared/routes/index.ts';
import { pascalCase } from '../names.ts';

export interface ThrottleProps {
  /** Steady-state requests per second across the stage. */
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * API Gateway's default account quota in a region (10,000 requests a second, bursts of 5,000), shared by
 * every API of the account there: the stage of a service that has the account to itself need not be
 * narrower. Tenants are kept from starving each other by their dataspace quotas, inside the functions.
 */
export const DEFAULT_THROTTLE: ThrottleProps = { rateLimit: 10_000, burstLimit: 5_000 };

export interface ServiceHttpApiProps {
  /** The function behind each name of the catalog; each route goes to its `function`. */
  readonly functions: Readonly<Record<FunctionName, lambda.IFunction>>;
  /** @default ROUTES */
  readonly routes?: readonly Route[];
  /** @default DEFAULT_ROUTE_FUNCTION */
  readonly defaultRouteFunction?: FunctionName;
  /** Default stage throttling. @default DEFAULT_THROTTLE (rate 10,000, burst 5,000: the account's default quota) */
  readonly throttle?: ThrottleProps;
  /** @default one month */
  readonly accessLogRetention?: logs.RetentionDays;
}

/** HTTP API access-log variables (not the REST API ones AccessLogFormat.jsonWithStandardFields uses). */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    method: '$context.httpMethod',
    routeKey: '$context.routeKey',
    path: '$context.path',
    protocol: '$context.protocol',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

export class ServiceHttpApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ServiceHttpApiProps) {
    super(scope, id);
    const routes = props.routes ?? ROUTES;
    const throttle = props.throttle ?? DEFAULT_THROTTLE;
    if (!(throttle.rateLimit > 0) || !Number.isInteger(throttle.burstLimit) || throttle.burstLimit < 1) {
      throw new Error(`Stage throttle needs a rate above 0 and a whole burst of at least 1: ${JSON.stringify(throttle)}`);
    }

    // One integration per function, shared by all of that function's routes.
    const integrations = new Map<FunctionName, HttpLambdaIntegration>();
    const integrationFor = (name: FunctionName): HttpLambdaIntegration => {
      let integration = integrations.get(name);
      if (!integration) {
        // One invoke permission per function (for this API), not one per route: with ~130 routes the
        // per-route permissions were a quarter of the stack's resources, near CloudFormation's 500.
        integration = new HttpLambdaIntegration(`${pascalCase(name)}Integration`, props.functions[name], { scopePermissionToRoute: false });
        integrations.set(name, integration);
      }
      return integration;
    };

    this.api = new apigw.HttpApi(this, 'Api', {
      description: 'Compliance service API',
      defaultIntegration: integrationFor(props.defaultRouteFunction ?? DEFAULT_ROUTE_FUNCTION),
      // The default stage is created below, with access logs and throttling.
      createDefaultStage: false,
    });

    const seen = new Set<string>();
    for (const route of routes) {
      // HEAD goes to the GET route's function, which answers it as GET without the body (headAsGet).
      const methods = route.method === 'GET' ? (['GET', 'HEAD'] as const) : ([route.method] as const);
      for (const method of methods) {
        const key = apigw.HttpRouteKey.with(gatewayPath(route), apigw.HttpMethod[method]);
        if (seen.has(key.key)) throw new Error(`Two routes of the route table become ${key.key} on API Gateway`);
        seen.add(key.key);
        new apigw.HttpRoute(this.api, `Route${pascalCase(route.operationId)}${method === 'HEAD' ? 'Head' : ''}`, {
          httpApi: this.api,
          routeKey: key,
          integration: integrationFor(route.function),
        });
      }
    }

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? logs.RetentionDays.ONE_MONTH,
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        format: ACCESS_LOG_FORMAT,
      },
    });

    // No API Gateway authorizer on any route, on purpose: the API promises DRF's answer to a missing or
    // wrong key (401, {"detail": ...}, WWW-Authenticate: Token), and an HTTP API cannot customise the
    // response of a rejecting authorizer. Each function checks the API key in its middy stack instead.
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'API keys are checked inside each function (middy stack), because an HTTP API authorizer cannot answer with the DRF-style 401 {"detail": ...} and WWW-Authenticate: Token the API promises.',
    });
  }

  /** The invoke URL of the $default stage. */
  get url(): string {
    return this.stage.url;
  }
}
