import { Link } from 'react-router';
import { PageHeader } from '../layout/page.tsx';

/** Any address the app has no page for. */
export function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" />
      <p>
        There is no page at this address. <Link to="/">Go to the workspace</Link>.
      </p>
    </>
  );
}
