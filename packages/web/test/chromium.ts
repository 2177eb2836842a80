/**
 * Debian's chromium as the browser tests and the browser benchmarks (bench/render, bench/embed)
 * start it: no sandbox (containers), no GPU, nothing fetched in the background (the machine's
 * network is closed; without these flags chromium keeps trying). Kept free of test imports so that
 * the benchmarks can use it.
 */
export const chromiumPath = process.env.TESSERA_CHROMIUM ?? '/usr/bin/chromium';

export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
