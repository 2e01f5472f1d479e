import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { apiDocs } from '../http/api-docs.decorators';

/** The OpenAPI declaration of the ledger's key set. */

export const LEDGER_JWK = {
  type: 'object',
  required: ['kty', 'crv', 'x', 'kid', 'use'],
  properties: {
    kty: { type: 'string', enum: ['OKP'] },
    crv: { type: 'string', enum: ['Ed25519'] },
    x: { type: 'string', description: 'The public key, base64url' },
    kid: { type: 'string', description: 'RFC 7638 thumbprint' },
    use: { type: 'string', enum: ['sig'] },
    status: { type: 'string', enum: ['active', 'retired'] },
  },
};

export const LedgerApiDocs = {
  controller: apiDocs(ApiTags('ledger')),
  keys: apiDocs(
    ApiOperation({ summary: 'The Ed25519 keys that sign ledger heads (JWK set): the active one and every retired one; no authentication' }),
    ApiResponse({ status: 200, description: 'A JWK set', schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: LEDGER_JWK } } } }),
  ),
};
