import { useGetMe } from '@tessera/client/react';
import { Link, useMatch } from 'react-router';
import { isDeliverable } from './profile-page.tsx';

/**
 * Asks a user whose address no mail reaches (the first admin's `admin@localhost`) for one, from
 * their first sign-in on (issue 22 item 1): notifications refuse such an address. A line above the
 * page, not a dialog, so that nothing is blocked until they do; the Profile page takes it.
 */
export function EmailPrompt() {
  // The user as the API has them now (the session's copy predates a change on the Profile page).
  const me = useGetMe();
  const onProfile = useMatch('/settings/profile') !== null;
  const user = me.data;
  if (!user || isDeliverable(user.email) || onProfile) return null;
  return (
    <div className="notice email-prompt">
      No mail can reach {user.email}, so notifications cannot either.{' '}
      <Link to="/settings/profile">Give your email address</Link>
    </div>
  );
}
