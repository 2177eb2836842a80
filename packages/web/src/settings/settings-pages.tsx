import type { ReactNode } from 'react';
import { AuditLogPage } from './audit-log-page.tsx';
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
  /** Which group of the navigation it sits in. */
  group: 'account' | 'administration';
  element: ReactNode;
}

export const settingsPages: SettingsPage[] = [
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
  {
    path: 'audit-log',
    label: 'Audit log',
    adminOnly: true,
    group: 'administration',
    element: <AuditLogPage />,
  },
];
