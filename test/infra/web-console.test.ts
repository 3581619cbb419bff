/**
 * The web console on AWS (lib/constructs/web-console.ts): a private, encrypted, TLS-only bucket that only
 * the distribution can read; one CloudFront origin for the console and, under /api/*, the HTTP API
 * (never cached, never redirected, no function rewriting headers); security headers
 * with a strict CSP; the console built by Vite and uploaded on deploy.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebConsole, type WebConsoleProps } from '../../lib/constructs/web-console.ts';
import { acknowledgments, logicalId, nagFindings, synthesize, type Synthesized } from './helpers.ts';

/** AWS-managed CloudFront policies, by id. */
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

type Json = Record<string, any>;
type Statement = { Effect: string; Action: string | string[]; Principal?: Json; Condition?: Json; Resource: unknown };

let synth: Synthesized;
let bucketId: string;
let distributionId: string;
let config: Json;

const actions = (statement: Statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);
const bucketStatements = (): Statement[] => {
  const policies = Object.values(synth.template.findResources('AWS::S3::BucketPolicy')).filter(
    (policy) => JSON.stringify(policy.Properties.Bucket) === JSON.stringify({ Ref: bucketId }),
  );
  expect(policies).toHaveLength(1);
  return policies[0]!.Properties.PolicyDocument.Statement as Statement[];
};
const originOf = (behavior: Json) => (config.Origins as Json[]).find((origin) => origin.Id === behavior.TargetOriginId)!;
const apiBehavior = () => (config.CacheBehaviors as Json[]).find((behavior) => behavior.PathPattern === '/api/*')!;

beforeAll(() => {
  synth = synthesize();
  bucketId = logicalId(synth.stack, synth.stack.webConsole!.bucket);
  distributionId = logicalId(synth.stack, synth.stack.webConsole!.distribution);
  config = synth.template.toJSON().Resources[distributionId].Properties.DistributionConfig;
});

describe('the console bucket', () => {
  it('blocks every kind of public access', () => {
    const bucket = synth.template.toJSON().Resources[bucketId];
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
    expect(bucket.Properties.WebsiteConfiguration).toBeUndefined();
  });

  it('is encrypted at rest (SSE-S3)', () => {
    expect(synth.template.toJSON().Resources[bucketId].Properties.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
  });

  it('refuses every request without TLS, and below TLS 1.2', () => {
    const denials = bucketStatements().filter((statement) => statement.Effect === 'Deny');
    expect(denials).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({ Action: 's3:*', Principal: { AWS: '*' }, Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } } }),
      ]),
    );
  });

  it('can be read only by CloudFront, on behalf of this distribution (origin access control)', () => {
    const readers = bucketStatements().filter(
      (statement) => statement.Effect === 'Allow' && actions(statement).some((action) => /^s3:(GetObject|\*)/.test(action)),
    );
    expect(readers).toEqual([
      {
        Effect: 'Allow',
        Action: 's3:GetObject',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Condition: {
          StringEquals: {
            'AWS:SourceArn': {
              'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution/', { Ref: distributionId }]],
            },
          },
        },
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
      },
    ]);
    synth.template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' },
    });
  });

  it('is emptied and deleted with the stack: it holds only rebuildable build output', () => {
    expect(synth.template.toJSON().Resources[bucketId]).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    synth.template.hasResourceProperties('Custom::S3AutoDeleteObjects', { BucketName: { Ref: bucketId } });
  });
});

describe('the distribution', () => {
  it('serves index.html at the root, from the bucket through origin access control, redirecting HTTP to HTTPS', () => {
    expect(config.DefaultRootObject).toBe('index.html');
    const behavior = config.DefaultCacheBehavior as Json;
    expect(behavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(behavior.CachePolicyId).toBe(CACHING_OPTIMIZED);
    const origin = originOf(behavior);
    expect(origin.DomainName).toEqual({ 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] });
    expect(origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/OriginAccessControl/), 'Id'] });
  });

  it('sends /api/* to the HTTP API: every method, never cached, all viewer headers but Host, HTTPS only', () => {
    const behavior = apiBehavior();
    expect(behavior).toBeDefined();
    expect(behavior.AllowedMethods).toEqual(expect.arrayContaining(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE']));
    expect(behavior.CachePolicyId).toBe(CACHING_DISABLED);
    expect(behavior.OriginRequestPolicyId).toBe(ALL_VIEWER_EXCEPT_HOST_HEADER);
    // Not redirect-to-https: a redirected POST would lose its body.
    expect(behavior.ViewerProtocolPolicy).toBe('https-only');
    expect(config.CacheBehaviors).toHaveLength(1);
  });

  it("reaches the API at the domain of the stack's own HTTP API endpoint, over HTTPS (TLS 1.2)", () => {
    const origin = originOf(apiBehavior());
    const apiId = logicalId(synth.stack, synth.stack.httpApi.api);
    expect(origin.DomainName).toEqual({ 'Fn::Select': [2, { 'Fn::Split': ['/', { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] }] }] });
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
  });

  it('runs no viewer-request function: the API builds its links on PUBLIC_BASE_URL, not on a forwarded host', () => {
    expect(apiBehavior().FunctionAssociations).toBeUndefined();
    expect(synth.template.findResources('AWS::CloudFront::Function')).toEqual({});
  });

  it('adds the security headers, with the strict CSP of a same-origin Vite app, to the console and the API', () => {
    const policyId = logicalId(synth.stack, synth.stack.webConsole!.securityHeaders);
    const headers = synth.template.toJSON().Resources[policyId].Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const uploadsId = logicalId(synth.stack, synth.stack.uploads.bucket);
    const bucketName = synth.template.toJSON().Resources[uploadsId].Properties.BucketName;
    expect(bucketName).toEqual({ 'Fn::Join': ['', [expect.stringMatching(/^compliancetest-[0-9a-f]{6}-sbom-$/), { Ref: 'AWS::AccountId' }, '-', { Ref: 'AWS::Region' }]] });
    // connect-src: the page's origin and exactly the upload bucket's, where the SDK's presigned upload URLs
    // point (virtual-hosted, regional): https://<bucket>.s3.<region>.amazonaws.com.
    const [before, after] = CSP.split("connect-src 'self'");
    const stem = bucketName['Fn::Join'][1][0];
    expect(headers).toEqual({
      ContentSecurityPolicy: {
        ContentSecurityPolicy: {
          'Fn::Join': ['', [`${before}connect-src 'self' https://${stem}`, { Ref: 'AWS::AccountId' }, '-', { Ref: 'AWS::Region' }, '.s3.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, after]],
        },
        Override: true,
      },
      StrictTransportSecurity: { AccessControlMaxAgeSec: 31_536_000, IncludeSubdomains: true, Override: true },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
    });
    expect(config.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
    expect(apiBehavior().ResponseHeadersPolicyId).toEqual({ Ref: policyId });
  });

  it("lets the console PUT large SBOMs to the upload bucket: its CORS rule allows PUT with Content-Type from the console's origin only", () => {
    const uploadsId = logicalId(synth.stack, synth.stack.uploads.bucket);
    const bucket = synth.template.toJSON().Resources[uploadsId];
    expect(bucket.Properties.CorsConfiguration).toEqual({
      CorsRules: [
        {
          AllowedOrigins: [{ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] }],
          AllowedMethods: ['PUT'],
          AllowedHeaders: ['content-type'],
          ExposedHeaders: ['ETag'],
          MaxAge: 3000,
        },
      ],
    });
  });

  it('uses the default certificate (viewer TLS then fixed by CloudFront, CFR4 acknowledged) unless given a domain', () => {
    expect(config.ViewerCertificate).toBeUndefined();
    expect(config.Aliases).toBeUndefined();
    const template = bareConsole({
      customDomain: {
        domainNames: ['console.example.com'],
        certificate: acm.Certificate.fromCertificateArn(new Stack(), 'Cert', 'arn:aws:acm:us-east-1:111111111111:certificate/abc'),
      },
    }).template;
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['console.example.com'],
        ViewerCertificate: { AcmCertificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/abc', MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
      }),
    });
  });

  it('has the custom domain as its public origin when given one, else the distribution domain', () => {
    const custom = new WebConsole(new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Custom'), 'WebConsole', {
      api: new apigw.HttpApi(new Stack(), 'Api'),
      customDomain: {
        domainNames: ['console.example.com', 'www.console.example.com'],
        certificate: acm.Certificate.fromCertificateArn(new Stack(), 'Cert', 'arn:aws:acm:us-east-1:111111111111:certificate/abc'),
      },
    });
    expect(custom.origin).toBe('https://console.example.com');
  });
});

describe('the console upload', () => {
  type Deployment = { Properties: Json; DependsOn?: string[] };
  const deployments = () =>
    Object.entries(synth.template.findResources('Custom::CDKBucketDeployment') as Record<string, Deployment>).filter(
      ([, deployment]) => JSON.stringify(deployment.Properties.DestinationBucketName) === JSON.stringify({ Ref: bucketId }),
    );

  it('uploads the content-hashed assets for a year, unpruned, then the pages, which invalidate the whole distribution', () => {
    const all = deployments();
    expect(all).toHaveLength(2);
    const [assetsId, assets] = all.find(([, d]) => JSON.stringify(d.Properties.Include) === JSON.stringify(['assets/*']))!;
    expect(assets.Properties).toMatchObject({
      Exclude: ['*'],
      Prune: false,
      SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' },
    });
    expect(assets.Properties.DistributionId).toBeUndefined();
    const [, pages] = all.find(([id]) => id !== assetsId)!;
    expect(pages.Properties).toMatchObject({
      Exclude: ['assets/*'],
      Prune: true,
      SystemMetadata: { 'cache-control': 'public, max-age=0, s-maxage=86400' },
      DistributionId: { Ref: distributionId },
      DistributionPaths: ['/*'],
    });
    expect(pages.DependsOn).toContain(assetsId);
    // One build of web/ for both.
    expect(pages.Properties.SourceObjectKeys).toEqual(assets.Properties.SourceObjectKeys);
  });

  it('runs under its own role, which writes only its own log group (no AWS-managed policy)', () => {
    const functions = Object.entries(synth.template.findResources('AWS::Lambda::Function')).filter(([id]) => id.startsWith('CustomCDKBucketDeployment'));
    expect(functions).toHaveLength(1);
    const [, fn] = functions[0]!;
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(synth.template.toJSON().Resources[roleId].Properties.ManagedPolicyArns).toBeUndefined();
    const logGroupId = (fn.Properties.LoggingConfig.LogGroup as { Ref: string }).Ref;
    synth.template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: roleId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] } },
        ]),
      },
    });
  });
});

describe('outputs and cdk-nag', () => {
  it('outputs the console URL: https://<distribution domain>/', () => {
    expect(synth.template.toJSON().Outputs.ConsoleUrl.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/']],
    });
  });

  it('reports no unacknowledged finding on the console, and acknowledges exactly the documented rules', () => {
    expect(nagFindings(synth.stack)).toEqual([]);
    const acks = acknowledgments(synth.stack).filter((ack) => ack.path.includes('WebConsole') || ack.path.includes('Custom::CDKBucketDeployment'));
    expect(acks.map((ack) => ack.id).sort()).toEqual(
      [
        'AwsSolutions-S1',
        'AwsSolutions-CFR1',
        'AwsSolutions-CFR2',
        'AwsSolutions-CFR3',
        'AwsSolutions-CFR4',
        'AwsSolutions-IAM5[Action::s3:GetObject*]',
        'AwsSolutions-IAM5[Action::s3:GetBucket*]',
        'AwsSolutions-IAM5[Action::s3:List*]',
        'AwsSolutions-IAM5[Action::s3:DeleteObject*]',
        'AwsSolutions-IAM5[Action::s3:Abort*]',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
        'AwsSolutions-IAM5[Resource::*]',
        'AwsSolutions-L1',
      ].sort(),
    );
  });

  it('needs no CFR4 acknowledgment with a custom domain, which requires TLS 1.2', () => {
    const { stack } = bareConsole({
      customDomain: {
        domainNames: ['console.example.com'],
        certificate: acm.Certificate.fromCertificateArn(new Stack(), 'Cert', 'arn:aws:acm:us-east-1:111111111111:certificate/abc'),
      },
    });
    expect(acknowledgments(stack).map((ack) => ack.id)).not.toContain('AwsSolutions-CFR4');
    expect(nagFindings(stack).filter((finding) => finding.includes('WebConsole'))).toEqual([]);
  });
});

describe('the console build (bundling on, as in cdk synth and deploy)', () => {
  let outdir: string;
  let built: string;

  beforeAll(() => {
    outdir = mkdtempSync(path.join(tmpdir(), 'compliance-console-'));
    const { template } = bareConsole({}, outdir);
    const keys = Object.values(template.findResources('Custom::CDKBucketDeployment')).map((d) => (d.Properties.SourceObjectKeys as string[])[0]);
    expect(new Set(keys).size).toBe(1);
    built = path.join(outdir, `asset.${keys[0]!.replace(/\.zip$/, '')}`);
  });

  afterAll(() => {
    rmSync(outdir, { recursive: true, force: true });
  });

  it('is a fresh Vite build of web/: index.html and its content-hashed assets', () => {
    const entries = readdirSync(built);
    expect(entries).toContain('index.html');
    expect(entries).not.toContain('src');
    expect(readdirSync(path.join(built, 'assets')).some((file) => /\.js$/.test(file))).toBe(true);
  });

  it('runs under the CSP: no inline script or style, and only same-origin scripts', () => {
    const html = readFileSync(path.join(built, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(body!.trim(), 'inline script').toBe('');
      expect(attributes).toMatch(/\bsrc="\/assets\//);
    }
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
  });
});

/** A WebConsole alone in a stack, in front of a bare HTTP API; bundling runs when an outdir is given. */
function bareConsole(props: Partial<WebConsoleProps>, outdir?: string): { stack: Stack; template: Template } {
  const app = new App(outdir ? { outdir } : { context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Bare');
  new WebConsole(stack, 'WebConsole', { api: new apigw.HttpApi(stack, 'Api'), ...props });
  return { stack, template: Template.fromStack(stack) };
}
