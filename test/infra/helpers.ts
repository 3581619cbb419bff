/**
 * Helpers for the infrastructure assertion tests: synthesizing the stack (with or without bundling),
 * reading a function's IAM actions, and running the cdk-nag AWS Solutions rules on a construct tree.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnResource, Validations, type PolicyViolation } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { ComplianceStack, type ComplianceStackProps } from '../../lib/compliance-stack.ts';
import type { ServiceFunction } from '../../lib/constructs/service-function.ts';

export interface Synthesized {
  readonly stack: ComplianceStack;
  readonly template: Template;
}

/**
 * Builds the stack the way bin/app.ts does. `bundle: false` sets the context that makes
 * NodejsFunction skip esbuild (the template is the same, minus real asset hashes); `context` adds
 * CDK context values (`-c key=value`).
 */
export function synthesize(
  props: ComplianceStackProps = {},
  options: { bundle?: boolean; outdir?: string; context?: Record<string, unknown> } = {},
): Synthesized {
  // Without an outdir of the caller's, the cloud assembly goes to a folder of our own that is removed once
  // the template is read (CDK's default is a new cdk.outXXXX under the temp folder, never removed).
  const outdir = options.outdir ?? mkdtempSync(join(tmpdir(), 'compliance-synth-'));
  const app = new App({ outdir, context: { ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }), ...options.context } });
  const stack = new ComplianceStack(app, 'ComplianceTest', props);
  try {
    return { stack, template: Template.fromStack(stack) };
  } finally {
    if (options.outdir === undefined) rmSync(outdir, { recursive: true, force: true });
  }
}

export function logicalId(stack: ComplianceStack, construct: IConstruct): string {
  const resource = construct.node.defaultChild ?? construct;
  if (!CfnResource.isCfnResource(resource)) throw new Error(`${construct.node.path} is not a CloudFormation resource`);
  return stack.getLogicalId(resource);
}

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

/** Every Allow statement of the policies attached to the function's role. */
export function roleStatements(synth: Synthesized, fn: ServiceFunction): Statement[] {
  const roleId = logicalId(synth.stack, fn.role);
  const policies = synth.template.findResources('AWS::IAM::Policy');
  return Object.values(policies)
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[])
    .filter((statement) => statement.Effect === 'Allow');
}

export function actionsOf(statements: readonly Statement[]): Set<string> {
  return new Set(statements.flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action])));
}

/** The AWS Solutions findings that no acknowledgment covers, as "RuleId at path" lines. */
export function nagFindings(scope: IConstruct): string[] {
  const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(scope);
  return report.violations
    .filter((violation: PolicyViolation) => violation.ruleName.startsWith('AwsSolutions-'))
    .flatMap((violation) =>
      violation.violatingResources.map((resource) => `${violation.severity} ${violation.ruleName} at ${resource.constructPath ?? resource.resourceLogicalId}: ${violation.description}`),
    );
}

/** Every acknowledgment recorded in the tree: rule id, construct path and reason. */
export function acknowledgments(scope: IConstruct): { id: string; path: string; reason: string }[] {
  return scope.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          id: id.replace(/^annotation::/i, ''),
          path: construct.node.path,
          reason,
        })),
      ),
  );
}
