import { Module } from '@nestjs/common';
import { ConsoleController } from './console.controller';
import { ConsolePageController } from './console-page.controller';

/** The web console (apps/console): its files, and the two public routes it needs to sign in. */
@Module({ controllers: [ConsoleController, ConsolePageController] })
export class ConsoleModule {}
