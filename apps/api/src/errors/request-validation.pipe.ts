import { type ArgumentMetadata, BadRequestException, Injectable, ValidationPipe } from '@nestjs/common';

/**
 * class-validator for DTOs, after making sure a body is a JSON object at all
 * (an array or a bare string would otherwise slip past the decorators).
 */
const REST_PARAMS = new Set<string>(['body', 'query', 'param']);

@Injectable()
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      transform: false,
      validationError: { target: false, value: false },
      stopAtFirstError: true,
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Whole REST request parts only (@Body(), @Query()): named values, which include every GraphQL
    // argument, are typed by their schema and checked by the domain; whitelisting would strip them.
    if (!REST_PARAMS.has(metadata.type) || metadata.data !== undefined) return value;
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new BadRequestException('Request body must be a JSON object');
      }
    }
    return super.transform(value, metadata);
  }
}
