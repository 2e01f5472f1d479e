import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/access.decorators';
import { pageCsp } from '../http/page-csp';
import { GRAPHQL_PATH } from './graphql-path';

const GRAPHIQL_VERSION = '3.8.3';
const UNPKG = 'https://unpkg.com';

const INIT = `
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, {
        fetcher: GraphiQL.createFetcher({ url: '${GRAPHQL_PATH}' }),
        defaultHeaders: JSON.stringify({ Authorization: 'Bearer <paste a token from: npm run token -- --sub you>' }, null, 2),
        defaultQuery: '{ myIncidents { id title severity status lastUpdate } }',
        isHeadersEditorEnabled: true,
      }),
    );
  `;

/** A GraphiQL page; the browser loads GraphiQL and React from unpkg. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Incident service · GraphQL playground</title>
  <style>body { margin: 0; } #graphiql { height: 100vh; }</style>
  <link rel="stylesheet" href="https://unpkg.com/graphiql@${GRAPHIQL_VERSION}/graphiql.min.css" />
  <script crossorigin src="https://unpkg.com/react@18/umd/react.production.min.js"></script>
  <script crossorigin src="https://unpkg.com/react-dom@18/umd/react-dom.production.min.js"></script>
  <script crossorigin src="https://unpkg.com/graphiql@${GRAPHIQL_VERSION}/graphiql.min.js"></script>
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script>${INIT}</script>
</body>
</html>`;

/** GraphiQL for trying the API in a browser; registered in development mode only. */
@Public()
@ApiExcludeController()
@Controller('graphql/playground')
export class PlaygroundController {
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('content-security-policy', pageCsp(INIT, { script: [UNPKG], style: [UNPKG, "'unsafe-inline'"] }))
  page(): string {
    return PAGE;
  }
}
