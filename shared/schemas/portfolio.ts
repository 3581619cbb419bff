/** The policy portfolio's query and answer (GET /api/v2/policy_portfolio/). */
import * as z from 'zod';
import { RULE_TYPES } from '../domain/policy-rules.ts';
import { shown } from './common.ts';

export const PORTFOLIO_DAYS = { default: 30, min: 1, max: 365 } as const;

export const PortfolioQuery = z.object({
  days: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || (/^\d{1,3}$/.test(value) && Number(value) >= PORTFOLIO_DAYS.min && Number(value) <= PORTFOLIO_DAYS.max), {
      error: (issue) => `Ensure "${shown(issue.input)}" is a whole number of days from ${PORTFOLIO_DAYS.min} to ${PORTFOLIO_DAYS.max}.`,
    })
    .describe(`Days of history, ending today (UTC): ${PORTFOLIO_DAYS.min} to ${PORTFOLIO_DAYS.max}, ${PORTFOLIO_DAYS.default} by default`),
});

export const PortfolioSchema = z
  .object({
    products_by_gate: z
      .object({ fail: z.int(), warn: z.int(), pass: z.int(), none: z.int() })
      .describe("The dataspace's products by their last evaluation's policy status (none: never evaluated)"),
    top_rules: z
      .array(
        z.object({
          rule_type: z.enum(RULE_TYPES),
          label: z.string(),
          severity: z.enum(['error', 'warning']),
          products: z.int().describe('Products in active violation of the rule'),
        }),
      )
      .describe('The rules with the most products in active violation, most first (at most 10)'),
    days: z
      .array(
        z.object({
          date: z.iso.date(),
          detected: z.int().describe('Violations detected (or re-activated) that day'),
          resolved: z.int().describe('Violations resolved that day'),
          active: z.int().describe('Active violations at the end of the day'),
        }),
      )
      .describe('Every day of the window, oldest first, today (UTC) last'),
  })
  .meta({ id: 'PolicyPortfolio' });
