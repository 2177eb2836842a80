import { useState } from 'react';
import { type Shareable, ShareDialog } from './share-dialog.tsx';

/** "Share…" on a folder, workbook or report page; the dialog says who has access and takes grants. */
export function ShareButton({ deploymentId, item }: { deploymentId: number; item: Shareable }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button button-secondary" onClick={() => setOpen(true)}>
        Share…
      </button>
      {open && <ShareDialog deploymentId={deploymentId} item={item} onClose={() => setOpen(false)} />}
    </>
  );
}
