/** AES-GCM sealing, and the key files in DATA_DIR it seals with. */
export * from './data-dir-key';
export * from './sealed-box';
