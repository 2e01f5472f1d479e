import { type ArgumentMetadata, BadRequestException, Injectable, ValidationPipe } from '@nestjs/common';

/**
 * class-validator for DTOs, after making sure a body is a JSON object at all
 * (an array or a bare string would otherwise slip past the decorators).
 */
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
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new BadRequestException('Request body must be a JSON object');
      }
    }
    return super.transform(value, metadata);
  }
}
