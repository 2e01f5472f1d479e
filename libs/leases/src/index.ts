// Leases (docs/architecture.md, "Leases"): the work one process at a time runs
// (projections, each outbound channel, timers) is run under a lease kept in
// the read store's database (the LeaseStore port, @im/read-models).
//   lease-keeper.ts   competes for leases, runs and stops the work, renews
//   lease-holder.ts   this process's identity, and whether a holder is gone
//   leases.module.ts  the process's keeper, given up at shutdown
export { type KeeperLog, LEASE_TIMINGS, LeaseKeeper, type LeasedWork, type LeaseTimings } from './lease-keeper';
export { holderIsGone, thisProcess } from './lease-holder';
export { LEASE_KEEPER, LeasesModule } from './leases.module';
