import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, type Type } from '@nestjs/common';
import { ONCALL_ADMIN_ROLE, type Principal } from '@im/access';
import { CurrentPrincipal, RequireRole } from '../auth/access.decorators';
import { OncallCommandHandler } from './oncall-command.handler';
import { OncallQueryService } from './oncall-query.service';

type Decorator = ClassDecorator & MethodDecorator;

/** The OpenAPI declarations of one kind's routes (oncall.api-docs.ts); without `update`, the kind has no PUT. */
export interface ConfigurationApiDocs {
  controller: Decorator;
  create: Decorator;
  list: Decorator;
  get: Decorator;
  update?: Decorator;
  remove: Decorator;
}

/** What each route of one kind calls: its parser, a command, a query. */
export interface ConfigurationRoutes<Input> {
  parse(body: unknown): Input;
  create(commands: OncallCommandHandler, input: Input, admin: Principal): Promise<unknown>;
  update?(commands: OncallCommandHandler, id: string, input: Input, admin: Principal): Promise<unknown>;
  remove(commands: OncallCommandHandler, id: string, admin: Principal): Promise<void>;
  list(oncall: OncallQueryService): Promise<unknown[]>;
  get(oncall: OncallQueryService, id: string): Promise<unknown>;
}

const NOT_A_ROUTE: MethodDecorator = () => undefined;

/**
 * The controller of one kind of on-call configuration (services, escalation
 * policies, heartbeats): anyone signed in reads, an `oncall.admin` writes.
 * `name` is the class's name, which the OpenAPI operation ids carry
 * (`ServicesController_create`).
 */
export function configurationController<Input>(name: string, path: string, docs: ConfigurationApiDocs, routes: ConfigurationRoutes<Input>): Type<unknown> {
  const hasUpdate = routes.update !== undefined && docs.update !== undefined;

  @docs.controller
  @Controller(path)
  class ConfigurationController {
    constructor(
      readonly commands: OncallCommandHandler,
      readonly oncall: OncallQueryService,
    ) {}

    @Post()
    @HttpCode(201)
    @RequireRole(ONCALL_ADMIN_ROLE)
    @docs.create
    create(@Body() body: unknown, @CurrentPrincipal() admin: Principal) {
      return routes.create(this.commands, routes.parse(body), admin);
    }

    @Get()
    @docs.list
    async list() {
      return { items: await routes.list(this.oncall) };
    }

    @Get(':id')
    @docs.get
    get(@Param('id') id: string) {
      return routes.get(this.oncall, id);
    }

    @(hasUpdate ? Put(':id') : NOT_A_ROUTE)
    @(hasUpdate ? RequireRole(ONCALL_ADMIN_ROLE) : NOT_A_ROUTE)
    @(docs.update ?? NOT_A_ROUTE)
    update(@Param('id') id: string, @Body() body: unknown, @CurrentPrincipal() admin: Principal) {
      return routes.update!(this.commands, id, routes.parse(body), admin);
    }

    @Delete(':id')
    @HttpCode(204)
    @RequireRole(ONCALL_ADMIN_ROLE)
    @docs.remove
    async remove(@Param('id') id: string, @CurrentPrincipal() admin: Principal): Promise<void> {
      await routes.remove(this.commands, id, admin);
    }
  }
  Object.defineProperty(ConfigurationController, 'name', { value: name });
  return ConfigurationController;
}
