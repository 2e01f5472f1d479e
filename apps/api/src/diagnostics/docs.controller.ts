import { Controller, Get, Header, NotFoundException, Param, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { absolutePath } from 'swagger-ui-dist';
import { Public } from '../auth/access.decorators';
import { pageCsp } from '../http/page-csp';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

const INIT = `
    window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
  `;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Incident service · API documentation</title>
  <link rel="stylesheet" href="/api/v1/docs/swagger-ui.css" />
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/v1/docs/swagger-ui-bundle.js"></script>
  <script src="/api/v1/docs/swagger-ui-standalone-preset.js"></script>
  <script>${INIT}</script>
</body>
</html>`;

/** One of Swagger UI's files, with its content type; 404 for any other name. */
function swaggerAsset(files: Map<string, Buffer>, name: string): StreamableFile {
  const file = files.get(name);
  if (!file) throw new NotFoundException(`No documentation asset ${name}`);
  return new StreamableFile(file, { type: ASSETS[name] });
}

/** Swagger UI over /api/v1/openapi.json, served from the swagger-ui-dist package; development mode only. */
@Public()
@ApiExcludeController()
@Controller('api/v1/docs')
export class DocsController {
  private readonly files = new Map(Object.keys(ASSETS).map((name) => [name, readFileSync(join(absolutePath(), name))]));

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  // Swagger UI styles itself with inline styles.
  @Header('content-security-policy', pageCsp(INIT, { style: ["'unsafe-inline'"] }))
  page(): string {
    return PAGE;
  }

  @Get(':asset')
  asset(@Param('asset') asset: string): StreamableFile {
    return swaggerAsset(this.files, asset);
  }
}
