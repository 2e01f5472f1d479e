import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { apiDocs } from '../http/api-docs.decorators';

/** The OpenAPI declaration of each notifications route; the controller only routes. */
export const NotificationsApiDocs = {
  controller: apiDocs(ApiTags('notifications')),

  vapidPublicKey: apiDocs(
    ApiOperation({ summary: "The VAPID public key (RFC 8292): a browser's pushManager.subscribe takes it as applicationServerKey; no token needed" }),
    ApiResponse({
      status: 200,
      description: 'The key, base64url (the uncompressed P-256 point, 65 bytes)',
      schema: { type: 'object', required: ['publicKey'], properties: { publicKey: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', example: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U' } } },
    }),
  ),
};
