#!/usr/bin/env node
// Runs the compiled CLI (dist/main.js), building it first when it is missing or its sources
// changed, so that a start does not transpile TypeScript every time (issue 20, item 6).
import { pathToFileURL } from 'node:url';
import { bundleFile, ensureServerBuild } from '../scripts/ensure-build.js';

// A build's progress goes to stderr: stdout carries the commands' output (`--json`, `openapi`).
await ensureServerBuild((line) => process.stderr.write(`${line}\n`));
// Stack traces name the TypeScript lines, through the bundle's source map.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(bundleFile).href);
