/**
 * The chat panel (spec 4.6): `ChatPanel` for any page (a route, a dashboard's side panel, the
 * embed page), `ChatPage` for the `/chat/:deploymentId` route.
 */
export { ChatPage } from './chat-page.tsx';
export { ChatPanel, type ChatPanelProps } from './chat-panel.tsx';
