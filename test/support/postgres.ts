/**
 * Whether the tests of PostgreSQL profiles run here: PostgreSQL's programs are installed, or the run requires them
 * (CI sets QUARRY_REQUIRE_POSTGRES, so that a failed install fails those tests instead of skipping them).
 */
import { postgresBin } from '../../src/bench/postgres-cluster.js';

export const withPostgres = postgresBin() !== undefined || !!process.env.QUARRY_REQUIRE_POSTGRES;
