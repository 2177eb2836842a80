import { Navigate, NavLink, Outlet, useMatch } from 'react-router';
import { EmptyState } from '../layout/states.tsx';
import { useSignedInUser } from '../session/session.tsx';
import { type SettingsPage, settingsPages } from './settings-pages.tsx';

const groupTitles: Record<SettingsPage['group'], string> = {
  account: 'Your account',
  administration: 'Administration',
};

/**
 * The pages the signed-in user may open: every admin page for an admin, their own for everyone,
 * and to a developer the admin pages the API lets developers use.
 */
export function useVisibleSettingsPages(): SettingsPage[] {
  const user = useSignedInUser();
  return settingsPages.filter(
    (page) =>
      !page.adminOnly || user.role === 'admin' || (page.developersToo === true && user.role === 'developer'),
  );
}

/**
 * The Settings area: a side navigation grouped by whose settings they are, and the open page. On a
 * phone the navigation sits above the page (styles.css `.settings`).
 */
export function SettingsLayout() {
  const pages = useVisibleSettingsPages();
  const atIndex = useMatch('/settings') !== null;
  if (atIndex && pages[0]) return <Navigate to={`/settings/${pages[0].path}`} replace />;
  return (
    <div className="settings">
      <nav aria-label="Settings" className="settings-nav">
        {(['account', 'administration'] as const).map((group) => {
          const inGroup = pages.filter((page) => page.group === group);
          if (inGroup.length === 0) return null;
          return (
            <div key={group} className="settings-nav-group">
              <h2>{groupTitles[group]}</h2>
              <ul>
                {inGroup.map((page) => (
                  <li key={page.path}>
                    <NavLink to={`/settings/${page.path}`}>{page.label}</NavLink>
                  </li>
                ))}
              </ul>
            </div>
          );
        })}
      </nav>
      <div className="settings-page">
        {pages.length === 0 ? <EmptyState title="There is nothing to set here yet." /> : <Outlet />}
      </div>
    </div>
  );
}

/** The routes of the Settings area, one per page, for the router (app.tsx). */
export function settingsRoutes() {
  return settingsPages.map((page) => ({ path: page.path, element: page.element }));
}
