/**
 * The web console's response headers, one table for both places that serve it: CloudFront's response
 * headers policy on AWS (lib/constructs/web-console.ts) and the local gateway (bin/local/console-files.ts).
 * The console is static files that talk only to the API on their own origin, so the policy allows
 * nothing else: no inline script, no third-party origin, no framing.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};
