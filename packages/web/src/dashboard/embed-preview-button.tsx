import { useState } from 'react';
import { EmbedPreviewDialog } from './embed-preview-dialog.tsx';

/**
 * "Preview embed…" on a published dashboard, for admins (generate-session is admin-only, spec
 * 4.3). A dashboard that does not allow embedding says so instead: its embed would answer 403.
 */
export function EmbedPreviewButton(props: {
  deploymentId: number;
  publicId: string;
  title: string;
  allowEmbed: boolean;
  adminEmail: string;
}) {
  const [open, setOpen] = useState(false);
  if (!props.allowEmbed)
    return (
      <span className="field-hint emb-preview-off">
        No embed preview: this dashboard does not allow signed embedding.
      </span>
    );
  return (
    <>
      <button type="button" className="button button-secondary" onClick={() => setOpen(true)}>
        Preview embed…
      </button>
      {open && (
        <EmbedPreviewDialog
          deploymentId={props.deploymentId}
          publicId={props.publicId}
          title={props.title}
          adminEmail={props.adminEmail}
          onClose={() => setOpen(false)}
        />
      )}
    </>
  );
}
