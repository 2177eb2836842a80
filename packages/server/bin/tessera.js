#!/usr/bin/env node
// Runs the TypeScript CLI directly; tsx compiles on the fly, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
