import type { ReactNode } from 'react';
import { ApiKeysPage } from './api-keys-page.tsx';
import { GroupsPage } from './groups-page.tsx';
import { ProfilePage } from './profile-page.tsx';
import { RolesPage } from './roles-page.tsx';
import { UsagePage } from './usage-page.tsx';
import { UsersPage } from './users-page.tsx';
import './settings-pages.css';
import { AuditLogPage } from './audit-log-page.tsx';
import { ChatAgentsPage } from './chat-agents-page.tsx';
import { ConnectedAccountsPage } from './connected-accounts-page.tsx';
import { EmbeddingPage } from './embedding-page.tsx';
import { EnvVariablesPage } from './env-variables-page.tsx';
import { OAuthIntegrationsPage } from './oauth-integrations-page.tsx';
import { OidcPage } from './oidc-page.tsx';
import { TenantSettingsPage } from './tenant-settings-page.tsx';
import { UserAttributeValuesPage } from './user-attribute-values-page.tsx';
import { UserAttributesPage } from './user-attributes-page.tsx';

/**
 * One page of the Settings area (issue 22 item 8): its address under `/settings/`, its label in the
 * side navigation, and who sees it. Each feature adds its own entry to `settingsPages`; the layout
 * and the router read this one list, so a new page touches no other file.
 */
export interface SettingsPage {
  /** The segment after `/settings/`, e.g. `users`. */
  path: string;
  label: string;
  /** Shown only to admins (every other page is the signed-in user's own, e.g. their profile). */
  adminOnly: boolean;
  /** An admin page that developers see too, because the API lets them use it (e.g. chat agents). */
  developersToo?: boolean;
  /** Which group of the navigation it sits in. */
  group: 'account' | 'administration';
  element: ReactNode;
}

export const settingsPages: SettingsPage[] = [
  { path: 'profile', label: 'Profile', adminOnly: false, group: 'account', element: <ProfilePage /> },
  { path: 'api-keys', label: 'API keys', adminOnly: false, group: 'account', element: <ApiKeysPage /> },
  { path: 'users', label: 'Users', adminOnly: true, group: 'administration', element: <UsersPage /> },
  { path: 'groups', label: 'Groups', adminOnly: true, group: 'administration', element: <GroupsPage /> },
  { path: 'roles', label: 'Roles', adminOnly: true, group: 'administration', element: <RolesPage /> },
  {
    path: 'connected-accounts',
    label: 'Connected accounts',
    adminOnly: false,
    group: 'account',
    element: <ConnectedAccountsPage />,
  },
  {
    path: 'oauth-integrations',
    label: 'OAuth integrations',
    adminOnly: true,
    group: 'administration',
    element: <OAuthIntegrationsPage />,
  },
  { path: 'oidc', label: 'OpenID Connect', adminOnly: true, group: 'administration', element: <OidcPage /> },
  {
    path: 'user-attributes',
    label: 'User attributes',
    adminOnly: true,
    group: 'administration',
    element: <UserAttributesPage />,
  },
  {
    path: 'user-attribute-values',
    label: 'User values',
    adminOnly: true,
    group: 'administration',
    element: <UserAttributeValuesPage />,
  },
  { path: 'usage', label: 'Usage', adminOnly: true, group: 'administration', element: <UsagePage /> },
  {
    path: 'audit-log',
    label: 'Audit log',
    adminOnly: true,
    group: 'administration',
    element: <AuditLogPage />,
  },
  {
    path: 'tenant',
    label: 'Tenant settings',
    adminOnly: true,
    group: 'administration',
    element: <TenantSettingsPage />,
  },
  {
    path: 'embedding',
    label: 'Embedding',
    adminOnly: true,
    group: 'administration',
    element: <EmbeddingPage />,
  },
  {
    path: 'chat-agents',
    label: 'Chat agents',
    adminOnly: true,
    developersToo: true,
    group: 'administration',
    element: <ChatAgentsPage />,
  },
  {
    path: 'env-variables',
    label: 'Env variables',
    adminOnly: true,
    developersToo: true,
    group: 'administration',
    element: <EnvVariablesPage />,
  },
];
