import { describeFuzz } from './fuzz-suite.ts';

// The management routes, the most numerous, in three parts (fuzz-suite.ts).
describeFuzz({ families: ['management'], part: 2, of: 3 });
