import { useGetDeployments } from '@tessera/client/react';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, NavLink, Outlet, useMatch, useNavigate } from 'react-router';
import { useSession, useSignedInUser } from '../session/session.tsx';
import { EmailPrompt } from '../settings/email-prompt.tsx';
import { idParam, rememberDeployment } from './deployment.ts';
import { LogoMark } from './icons.tsx';

/** The sections of the signed-in app; each shows one deployment at a time. */
export type Section = 'workspace' | 'dashboards' | 'explore' | 'chat' | 'sql' | 'data-sources';

/** The deployment in the address, and which section shows it. */
export function useCurrentDeployment(): { deploymentId: number | null; section: Section } {
  const workspace = useMatch('/workspace/:deploymentId/*');
  const dashboards = useMatch('/dashboards/:deploymentId/*');
  const explore = useMatch('/explore/:deploymentId/*');
  const chat = useMatch('/chat/:deploymentId/*');
  const sql = useMatch('/sql/:deploymentId/*');
  const data = useMatch('/data-sources/:deploymentId/*');
  const match = workspace ?? dashboards ?? explore ?? chat ?? sql ?? data;
  return {
    deploymentId: idParam(match?.params.deploymentId),
    section: dashboards
      ? 'dashboards'
      : explore
        ? 'explore'
        : chat
          ? 'chat'
          : sql
            ? 'sql'
            : data
              ? 'data-sources'
              : 'workspace',
  };
}

function DeploymentPicker() {
  const { deploymentId, section } = useCurrentDeployment();
  const navigate = useNavigate();
  const deployments = useGetDeployments({ params: { query: { first: 1000 } } });
  useEffect(() => {
    if (deploymentId !== null) rememberDeployment(deploymentId);
  }, [deploymentId]);
  const items = deployments.data?.items ?? [];
  if (deployments.isError) return null;
  return (
    <label className="deployment-picker">
      <span className="visually-hidden">Deployment</span>
      <select
        value={deploymentId ?? ''}
        disabled={deployments.isPending || items.length === 0}
        onChange={(event) => {
          const id = Number(event.target.value);
          if (id > 0) navigate(`/${section}/${id}`);
        }}
      >
        {deploymentId === null && <option value="">Choose a deployment</option>}
        {deploymentId !== null && !items.some((d) => d.id === deploymentId) && (
          <option value={deploymentId}>
            {deployments.isPending ? 'Loading…' : `Deployment ${deploymentId}`}
          </option>
        )}
        {items.map((d) => (
          <option key={d.id} value={d.id}>
            {d.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function initialsOf(name: string): string {
  const parts = name.split(/[\s@._-]+/).filter(Boolean);
  return (parts[0]?.[0] ?? '?').toUpperCase() + (parts[1]?.[0] ?? '').toUpperCase();
}

function UserMenu() {
  const user = useSignedInUser();
  const { signOut } = useSession();
  const [signingOut, setSigningOut] = useState(false);
  const name = [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email;
  return (
    <div className="user-menu">
      <span className="avatar" aria-hidden="true">
        {initialsOf(name)}
      </span>
      <span className="user-text">
        <span className="user-name">{name}</span>
        <span className="user-role">{user.role}</span>
      </span>
      <button
        type="button"
        className="button button-ghost"
        disabled={signingOut}
        onClick={async () => {
          setSigningOut(true);
          await signOut().catch(() => undefined);
        }}
      >
        {signingOut ? 'Signing out…' : 'Sign out'}
      </button>
    </div>
  );
}

/** The Data area, for those who may change data sources and models (developers and admins). */
function DataLink() {
  const user = useSignedInUser();
  if (user.role !== 'admin' && user.role !== 'developer') return null;
  return <NavLink to="/data-sources">Data</NavLink>;
}

/** The signed-in app's frame: the top bar (sections, deployment, user) and a footer with the API links. */
export function AppShell({ children }: { children?: ReactNode }) {
  const { deploymentId } = useCurrentDeployment();
  const suffix = deploymentId === null ? '' : `/${deploymentId}`;
  // The SQL editor runs queries with a data-API token, which viewers do not get.
  const developer = useSignedInUser().role !== 'viewer';
  // A dashboard takes the whole window, so that its grid reaches the wide breakpoints of its
  // layout (spec 2.2: `lg` from 1200px of grid); text pages keep a readable measure.
  // Explore too: the model's tree beside the question and its chart.
  const dashboard = useMatch('/dashboards/:deploymentId/:publicId');
  const printView = useMatch('/dashboards/:deploymentId/:publicId/print');
  const explore = useMatch('/explore/:deploymentId');
  const wide = dashboard !== null || printView !== null || explore !== null;
  return (
    <div className={wide ? 'shell shell-wide' : 'shell'}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand">
            <LogoMark />
            <span>Tessera</span>
          </Link>
          <nav aria-label="Sections" className="sections">
            <NavLink to={`/workspace${suffix}`}>Workspace</NavLink>
            <NavLink to={`/dashboards${suffix}`}>Dashboards</NavLink>
            <NavLink to={`/explore${suffix}`}>Explore</NavLink>
            <NavLink to={`/chat${suffix}`}>Chat</NavLink>
            {developer && <NavLink to={`/sql${suffix}`}>SQL</NavLink>}
            <DataLink />
            <NavLink to="/settings">Settings</NavLink>
          </nav>
          <div className="topbar-end">
            <DeploymentPicker />
            <UserMenu />
          </div>
        </div>
      </header>
      <main id="main" className="main" tabIndex={-1}>
        <EmailPrompt />
        {children ?? <Outlet />}
      </main>
      <footer className="footer">
        <span>Tessera</span>
        <nav aria-label="Help">
          <a href="/api/docs">API reference</a>
          <a href="/api/openapi.json">OpenAPI document</a>
        </nav>
      </footer>
    </div>
  );
}
