// The verifiable ledger's proofs (docs/api.md, "Verifiable ledger"): pure computation, no I/O, shared by
// the event stores (links on append), the service (exports, signed heads) and `npm run verify`.
export * from './bundle';
export * from './bundle-runs';
export * from './committed-form';
export * from './jcs';
export * from './signed-head';
export * from './view-chains';
