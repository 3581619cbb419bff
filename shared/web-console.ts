/**
 * The web console's response headers, one table for both places that serve it: CloudFront's response
 * headers policy on AWS (lib/constructs/web-console.ts) and the local gateway (bin/local/console-files.ts).
 * The console is static files that talk to the API on their own origin and, for a large SBOM, PUT the
 * document to the presigned URL of the upload bucket: so the policy allows connecting to the page's own
 * origin and to exactly that bucket's origin (on AWS https://<bucket>.s3.<region>.amazonaws.com, where
 * the SDK's presigned URLs point; locally the S3 emulator's CORS front), and nothing else: no inline
 * script, no third-party origin, no framing.
 */

/** The policy, with the upload bucket's origin (scheme, host and port, no path) allowed for connections. */
export function consoleContentSecurityPolicy(uploadOrigin?: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    uploadOrigin ? `connect-src 'self' ${uploadOrigin}` : "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/** The policy without an upload origin (a console that cannot upload large SBOMs). */
export const CONSOLE_CONTENT_SECURITY_POLICY = consoleContentSecurityPolicy();

export function consoleSecurityHeaders(uploadOrigin?: string): Readonly<Record<string, string>> {
  return {
    'Content-Security-Policy': consoleContentSecurityPolicy(uploadOrigin),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  };
}

export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = consoleSecurityHeaders();
