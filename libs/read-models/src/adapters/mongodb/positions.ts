/** Positions as fixed-width hex: string order is numeric order, and 128-bit KurrentDB positions fit. */
export const hex = (position: bigint) => position.toString(16).padStart(32, '0');
export const fromHex = (position: string) => BigInt(`0x${position}`);
