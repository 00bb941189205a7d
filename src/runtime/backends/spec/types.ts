/** @internal Forwards to sandbox-client/contract.ts for spec/guest.ts until it moves (remove after the merge). */
export { GUEST_PROTOCOL, type GuestSpec } from '../sandbox-client/contract.js';
