import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@im/config';
import { LedgerModule } from '@im/write-path';
import { TimelineModule } from '../timeline/timeline.module';
import { DiagnosticsController } from './diagnostics.controller';
import { DocsController } from './docs.controller';
import { OpenApiDocument } from './openapi.document';
import { SimulationService } from './simulation.service';
import { ValidationService } from './validation.service';

@Module({})
export class DiagnosticsModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: DiagnosticsModule,
      imports: [LedgerModule, TimelineModule],
      controllers: [DiagnosticsController, ...(config.env === 'development' ? [DocsController] : [])],
      providers: [ValidationService, SimulationService, OpenApiDocument],
      exports: [OpenApiDocument],
    };
  }
}
