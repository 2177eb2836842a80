/** Saves `csv` as a file named after the tile (built in the page: no request). */
export function downloadCsv(csv: string, title: string) {
  saveBlob(new Blob([csv], { type: 'text/csv;charset=utf-8' }), title, 'csv');
}

/** Saves a file the page holds, named after the tile's title. */
export function saveBlob(blob: Blob, title: string, extension: string) {
  const name = `${
    title
      .trim()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '') || 'data'
  }.${extension}`;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
