/**
 * The web console on AWS: the static single-page app of web/ (built by Vite on every synth) in a private
 * S3 bucket, served by one CloudFront distribution that also routes `/api/*` to the HTTP API, so the
 * console and the API share one origin and the console needs no CORS.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { AssetHashType, DockerImage, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { PRIVATE_BUCKET } from './private-bucket.ts';
import { consoleContentSecurityPolicy } from '../../shared/web-console.ts';
import { PROJECT_ROOT } from './service-function.ts';

/** The console's sources and Vite config; `npm run build:web` builds the same app to web/dist. */
const WEB_DIR = path.join(PROJECT_ROOT, 'web');
const VITE_CONFIG = path.join(WEB_DIR, 'vite.config.ts');
const VITE = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'vite');

export interface WebConsoleCustomDomain {
  /** Names the distribution answers to, e.g. `console.example.com`. */
  readonly domainNames: readonly string[];
  /** ACM certificate in us-east-1 covering every name. */
  readonly certificate: acm.ICertificate;
}

export interface WebConsoleProps {
  /** The HTTP API that `/api/*` goes to. */
  readonly api: apigw.IHttpApi;
  /** The origin of the SBOM upload bucket's presigned URLs, which the console's CSP lets it PUT to. @default none: connect-src 'self' only */
  readonly uploadOrigin?: string;
  /** Keep earlier versions of the console files in the bucket. @default false: the files are rebuilt from git */
  readonly versioned?: boolean;
  /**
   * Serve on your own domain with your own certificate; viewers then need TLS 1.2 or newer.
   * @default the distribution's *.cloudfront.net name and CloudFront's default certificate
   */
  readonly customDomain?: WebConsoleCustomDomain;
  /** @default one month */
  readonly deploymentLogRetention?: logs.RetentionDays;
}

export class WebConsole extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly securityHeaders: cloudfront.ResponseHeadersPolicy;
  private readonly customDomain: WebConsoleCustomDomain | undefined;

  constructor(scope: Construct, id: string, props: WebConsoleProps) {
    super(scope, id);
    this.customDomain = props.customDomain;

    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...PRIVATE_BUCKET,
      versioned: props.versioned ?? false,
      // The bucket holds only build output that every deploy uploads again from web/: deleting the stack
      // may empty and delete it (unlike the table, which is retained). Retaining it would leave one
      // orphaned bucket behind per deleted stack, and a plain DESTROY fails on a non-empty bucket.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The console bucket holds only the public build output of web/; CloudFront (origin access control) is its only reader and the deployment its only writer. Its configuration changes are in CloudTrail.',
    });

    this.securityHeaders = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Security headers of the compliance web console and API',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: consoleContentSecurityPolicy(props.uploadOrigin), override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
      },
    });

    // https://<id>.execute-api.<region>.amazonaws.com → <id>.execute-api.<region>.amazonaws.com
    const apiDomain = Fn.select(2, Fn.split('/', props.api.apiEndpoint));

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Compliance service: web console and /api/*',
      defaultRootObject: 'index.html',
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      // The default *.cloudfront.net certificate fixes the viewer policy at TLSv1 (CFR4, acknowledged below).
      ...(props.customDomain
        ? {
            domainNames: [...props.customDomain.domainNames],
            certificate: props.customDomain.certificate,
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.securityHeaders,
      },
      additionalBehaviors: {
        '/api/*': {
          origin: new origins.HttpOrigin(apiDomain, {
            protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
            originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
          }),
          // Refused over plain HTTP rather than redirected: a redirected POST would lose its body.
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          // Everything the viewer sent (Authorization, query, body) except Host, which must stay the API's.
          // The API builds its links on its configured PUBLIC_BASE_URL (this origin), not on any header.
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.securityHeaders,
        },
      },
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'The console and the API serve their users wherever they are; access is decided by API keys, not by country.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'No AWS WAF web ACL: the API behind /api/* is throttled per stage and per API key, and the console is static files. A web ACL can be added when the operators want one.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'No CloudFront access logs: every /api/* request is in the HTTP API stage access log, and the rest are public static files. Standard logging would need another bucket with ACLs, or log delivery from us-east-1.',
      },
      ...(props.customDomain
        ? []
        : [
            {
              id: 'AwsSolutions-CFR4',
              reason:
                'The distribution uses its *.cloudfront.net name and the CloudFront default certificate, whose viewer security policy is fixed at TLSv1; with customDomain it requires TLSv1.2_2021.',
            },
          ]),
    );

    this.deploy(props.deploymentLogRetention ?? logs.RetentionDays.ONE_MONTH);
  }

  /**
   * The public origin of the console and of the API under /api/: https://<first custom domain name>, or
   * https://<distribution domain> without one.
   */
  get origin(): string {
    const name = this.customDomain?.domainNames[0];
    return `https://${name ?? this.distribution.distributionDomainName}`;
  }

  /** https://<distribution domain>/ */
  get url(): string {
    return `${this.origin}/`;
  }

  /**
   * Uploads the console in two parts: the content-hashed files of assets/ (cached for a year, never
   * pruned, so a page loaded before a deploy can still fetch its chunks), then everything else
   * (index.html: revalidated by browsers on every load, cached at the edge until the next deploy
   * invalidates it). The second waits for the first, so a new index.html never names a missing asset.
   */
  private deploy(logRetention: logs.RetentionDays): void {
    // Like the service functions: an explicit role that may write to its own log group only, instead of
    // the default role with the AWS-managed AWSLambdaBasicExecutionRole.
    const logGroup = new logs.LogGroup(this, 'DeploymentLogs', { retention: logRetention });
    const role = new iam.Role(this, 'DeploymentRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Execution role of the web console deployment (CDK BucketDeployment)',
    });
    logGroup.grantWrite(role);

    const source = consoleSource();
    const common = { sources: [source], destinationBucket: this.bucket, role, logGroup };
    const assets = new s3deploy.BucketDeployment(this, 'DeployAssets', {
      ...common,
      exclude: ['*'],
      include: ['assets/*'],
      prune: false,
      cacheControl: [s3deploy.CacheControl.setPublic(), s3deploy.CacheControl.maxAge(Duration.days(365)), s3deploy.CacheControl.immutable()],
    });
    const pages = new s3deploy.BucketDeployment(this, 'DeployPages', {
      ...common,
      exclude: ['assets/*'],
      cacheControl: [s3deploy.CacheControl.setPublic(), s3deploy.CacheControl.maxAge(Duration.seconds(0)), s3deploy.CacheControl.sMaxAge(Duration.days(1))],
      distribution: this.distribution,
      distributionPaths: ['/*'],
    });
    pages.node.addDependency(assets);

    this.acknowledgeDeploymentFindings(role);
  }

  /**
   * cdk-nag findings on what CDK's BucketDeployment grants its role (the actions and resources are its
   * own, not chosen here) and on its handler function, which CDK creates once per stack.
   */
  private acknowledgeDeploymentFindings(role: iam.Role): void {
    const stack = Stack.of(this);
    const bucketId = stack.getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket);
    Validations.of(role).acknowledge(
      ...['s3:GetObject*', 's3:GetBucket*', 's3:List*'].map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: `${action}, granted by CDK BucketDeployment on the CDK assets bucket and the console bucket only: it reads the console zip and syncs the bucket against it.`,
      })),
      ...['s3:DeleteObject*', 's3:Abort*'].map((action) => ({
        id: `AwsSolutions-IAM5[Action::${action}]`,
        reason: `${action}, granted by CDK BucketDeployment on the console bucket only: pruning files no longer in the build, and its own multipart uploads.`,
      })),
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
        reason: 'Read access to the CDK assets bucket, granted by CDK BucketDeployment to fetch the console zip, whose key changes with every build.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
        reason: 'The deployment writes and prunes every object of the console bucket, which holds nothing but the console.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'cloudfront:CreateInvalidation and cloudfront:GetInvalidation, granted on * by CDK BucketDeployment to invalidate the console distribution after an upload.',
      },
    );
    for (const child of stack.node.children) {
      if (child.node.id.startsWith('Custom::CDKBucketDeployment')) {
        Validations.of(child).acknowledge({
          id: 'AwsSolutions-L1',
          reason: 'The runtime of the CDK BucketDeployment handler (Python with the AWS CLI layer) is chosen by aws-cdk-lib and moves with it, not set by this project.',
        });
      }
    }
  }
}

/**
 * web/ built by Vite on the synth machine (no Docker): `tryBundle` runs `vite build` into the asset's
 * output directory and always succeeds or throws, so the placeholder image is never used. The hash is
 * that of the output, so a change anywhere the console imports from (shared/ too) redeploys it, and an
 * unchanged build does not (Vite's output is deterministic). When bundling is skipped (the infra tests,
 * `aws:cdk:bundling-stacks: []`) CDK names the asset after its construct path and reads nothing in web/,
 * so web/dist need not exist. `exclude` keeps web/node_modules and a stale web/dist out of the hash
 * should it ever be taken from the sources again.
 */
function consoleSource(): s3deploy.ISource {
  return s3deploy.Source.asset(WEB_DIR, {
    assetHashType: AssetHashType.OUTPUT,
    exclude: ['node_modules', 'dist'],
    bundling: {
      image: DockerImage.fromRegistry('none'),
      local: {
        tryBundle(outputDir: string): boolean {
          // The Node that runs the CDK app runs Vite too; Vite's stdout goes to stderr, as esbuild's does
          // for the functions, so nothing but CDK writes the app's stdout.
          execFileSync(process.execPath, [VITE, 'build', '--config', VITE_CONFIG, '--outDir', outputDir, '--emptyOutDir'], {
            cwd: PROJECT_ROOT,
            stdio: ['ignore', process.stderr, 'inherit'],
          });
          return true;
        },
      },
    },
  });
}
