/** PLACEHOLDER of the skeleton commit: the Audit page is being built (issue 19). */
import { PageHeading } from '../components.tsx';
import type { Session } from '../session.ts';

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function AuditPage(_props: { session: Session; query: URLSearchParams }) {
  return <PageHeading>Audit</PageHeading>;
}
