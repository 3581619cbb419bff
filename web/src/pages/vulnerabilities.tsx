/** PLACEHOLDER of the skeleton commit: the Vulnerabilities page is being built (issue 19). */
import { PageHeading } from '../components.tsx';
import type { Session } from '../session.ts';

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function VulnerabilitiesPage(_props: { session: Session; segments: readonly string[]; query: URLSearchParams }) {
  return <PageHeading>Vulnerabilities</PageHeading>;
}
