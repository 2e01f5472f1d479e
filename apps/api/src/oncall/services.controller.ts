import { configurationController } from './configuration.controller';
import { ServicesApiDocs } from './oncall.api-docs';
import { parseServiceBody } from './service.body';

/** Services: anyone signed in reads them, an `oncall.admin` changes them. */
export const ServicesController = configurationController('ServicesController', 'api/v1/services', ServicesApiDocs, {
  parse: parseServiceBody,
  create: (commands, input, admin) => commands.createService(input, admin),
  update: (commands, id, input, admin) => commands.updateService(id, input, admin),
  remove: (commands, id, admin) => commands.deleteService(id, admin),
  list: (oncall) => oncall.services(),
  get: (oncall, id) => oncall.service(id),
});
