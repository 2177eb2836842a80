import { describeFuzz } from './fuzz-suite.ts';

// The SCIM, data API and public routes, and the check that every route has a case (fuzz-suite.ts).
describeFuzz({ families: ['scim', 'data', 'public'], checksCoverage: true });
