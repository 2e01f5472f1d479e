import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import type { FastifyInstance } from 'fastify';
import { type DocumentNode, type ExecutionResult, getOperationAST, GraphQLError, parse, validate } from 'graphql';
import { CloseCode, type Context, type SubscribeMessage } from 'graphql-ws';
import type * as GraphqlWsOverWs from 'graphql-ws/dist/use/ws';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { APP_CONFIG, type AppConfig } from '@im/config';
import { IncidentQueryService, type Principal } from '@im/access';
import { RequestAuthenticator } from '../auth/request-authenticator';
import { TOKEN_EXPIRED, whenTokenExpires } from '../auth/token-expiry';
import { classifyAndLog, codedGraphqlError } from '../errors/http-error.filter';
import { BODY_LIMIT_BYTES } from '../http/json-body.parser';
import { BatchedWebSocket } from './batched-web-socket';
import { contextFor } from './graphql-context';
import { GRAPHQL_PATH } from './graphql-path';
import { queryLimitError } from './query-limits.plugin';
import { rememberOperation, subscribeSharingExecutions } from './shared-execution';
import { missingRole, rootFields } from './subscription-access';
import { SLOW_CONSUMER } from './subscription-payloads';

// graphql-ws publishes its ws binding only through package exports, which this project's (node10) module resolution does not read.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { useServer } = require('graphql-ws/use/ws') as typeof GraphqlWsOverWs;

/** Operations one socket may run at once; each holds a feed subscription. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 32;
/** The most bytes a close reason may hold (RFC 6455, 5.5). */
const MAX_CLOSE_REASON_BYTES = 123;
/** RFC 6455's "try again later" (a server that cannot authenticate now, a subscriber too far behind): clients retry it. */
const TRY_AGAIN_LATER = 1013;

type SocketState = Record<PropertyKey, unknown> & {
  principal?: Principal;
};

type SocketContext = Context<Record<string, unknown> | undefined, GraphqlWsOverWs.Extra & SocketState>;

const coded = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

function closeWith(context: SocketContext, code: number, reason: string): void {
  let text = reason;
  while (Buffer.byteLength(text) > MAX_CLOSE_REASON_BYTES) text = `${text.slice(0, -2)}…`;
  context.extra.socket.close(code, text);
}

/** The socket's close code for a refused connection_init: 4401, 4403, or a retryable code for the server's own trouble. */
const closeCodeFor = (status: number) => (status === 401 ? CloseCode.Unauthorized : status === 403 ? CloseCode.Forbidden : status === 503 ? TRY_AGAIN_LATER : CloseCode.InternalServerError);

/**
 * GraphQL subscriptions over graphql-transport-ws (the graphql-ws library) at
 * /api/v1/graphql, on the api's own HTTP server, executing against the schema
 * Nest built. Its own WebSocketServer rather than @nestjs/apollo's: that one
 * accepts messages of up to ws's default 100 MiB and leaves an upgrade to any
 * other path hanging.
 *
 * The token comes in connection_init (`{"Authorization": "Bearer <token>"}`)
 * and is checked by the same RequestAuthenticator as every HTTP request: none
 * or an invalid one closes the socket with 4401, an integration key with 4403,
 * and the socket is closed with 4401 when the token expires. Each subscribe is
 * parsed, validated and held to the same depth and complexity limits as over
 * HTTP; one that the caller's roles do not allow closes the socket with 4403
 * before it starts. Queries and mutations go over HTTP only.
 */
@Injectable()
export class GraphqlWsServer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly sockets = new WebSocketServer({ noServer: true, maxPayload: BODY_LIMIT_BYTES, WebSocket: BatchedWebSocket });
  private server?: Server;
  private stop?: () => void | Promise<void>;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly schemaHost: GraphQLSchemaHost,
    private readonly authenticator: RequestAuthenticator,
    private readonly incidents: IncidentQueryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.registerClose();
  }

  /**
   * Sockets close before the HTTP server and before LiveFeed ends its streams
   * (live.module.ts), so a client sees 1001 and subscribes again elsewhere,
   * never a `complete` that would end its subscription for good. Hooks run in
   * the order they were added, and the constructor runs before any module's init.
   */
  private registerClose(): void {
    this.adapterHost.httpAdapter.getInstance<FastifyInstance>().addHook('preClose', async () => this.close());
  }

  /** After every module's init: the schema is built by then. */
  onApplicationBootstrap(): void {
    const { dispose } = useServer<Record<string, unknown> | undefined, SocketState>(
      {
        onConnect: (context) => this.connect(context),
        onSubscribe: (context, _id, payload) => this.subscribe(context, payload),
        onNext: (context, _id, _payload, _args, result) => this.cutOffSlowConsumer(context, result),
        onError: (_context, _id, _payload, errors) => errors.map((error) => codedGraphqlError(error).toJSON()),
        subscribe: subscribeSharingExecutions,
      },
      this.sockets,
      this.config.live.graphqlWsPingMs,
    );
    this.stop = dispose;
    this.server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    this.server.on('upgrade', this.upgrade);
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  /** Whether sockets are being accepted, and how many are open (for /api/v1/validate). */
  status(): { accepting: boolean; open: number } {
    return { accepting: this.stop !== undefined && (this.server?.listenerCount('upgrade') ?? 0) > 0, open: this.sockets.clients.size };
  }

  /** Every open socket is told the server is going away (1001, which clients retry elsewhere). */
  private async close(): Promise<void> {
    const stop = this.stop;
    this.stop = undefined;
    this.server?.off('upgrade', this.upgrade);
    await stop?.();
  }

  /**
   * A subscription whose subscriber fell too far behind ended with SLOW_CONSUMER:
   * the socket is closed with 1013 (try again later), which graphql-ws clients
   * retry, subscribing again. Its other subscriptions share the same stalled
   * connection, so they go with it.
   */
  private cutOffSlowConsumer(context: SocketContext, result: ExecutionResult): undefined {
    const slow = result.errors?.find((error) => error.extensions?.code === SLOW_CONSUMER);
    if (slow) closeWith(context, TRY_AGAIN_LATER, slow.message);
    return undefined;
  }

  private readonly upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== GRAPHQL_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.sockets.handleUpgrade(request, socket, head, (ws) => {
      ws.transport = socket as Socket;
      this.sockets.emit('connection', ws, request);
    });
  };

  private async connect(context: SocketContext): Promise<boolean> {
    const header = context.connectionParams?.Authorization ?? context.connectionParams?.authorization;
    if (typeof header !== 'string') {
      closeWith(context, CloseCode.Unauthorized, 'A bearer token is required: connection_init payload {"Authorization": "Bearer <token>"}');
      return false;
    }
    let principal: Principal;
    try {
      principal = await this.authenticator.authenticate({ headers: { authorization: header } });
    } catch (error) {
      const { status, message } = classifyAndLog(error);
      closeWith(context, closeCodeFor(status), message);
      return false;
    }
    if (principal.integrationKey !== undefined) {
      closeWith(context, CloseCode.Forbidden, 'An integration key is not accepted by GraphQL; use a token');
      return false;
    }
    context.extra.principal = principal;
    // Closed with 4401 once the token has expired, as an HTTP request with it would be refused.
    const cancel = whenTokenExpires(header, () => closeWith(context, CloseCode.Unauthorized, TOKEN_EXPIRED));
    context.extra.socket.once('close', cancel);
    return true;
  }

  /** The execution of one subscribe message, or the errors that refuse it. */
  private subscribe(context: SocketContext, payload: SubscribeMessage['payload']) {
    const principal = context.extra.principal!;
    const { schema } = this.schemaHost;
    let document: DocumentNode;
    try {
      document = parse(payload.query);
    } catch (error) {
      return [coded((error as Error).message, 'GRAPHQL_PARSE_FAILED')];
    }
    const invalid = validate(schema, document);
    if (invalid.length > 0) return invalid.map((error) => coded(error.message, 'GRAPHQL_VALIDATION_FAILED'));
    const operation = getOperationAST(document, payload.operationName);
    if (!operation) return [coded('Name the operation to run (operationName)', 'BAD_REQUEST')];
    if (operation.operation !== 'subscription') {
      return [coded(`Only subscriptions are served over the socket; send a ${operation.operation} to POST ${GRAPHQL_PATH}`, 'BAD_REQUEST')];
    }
    const tooComplex = queryLimitError(schema, document, payload.operationName, payload.variables);
    if (tooComplex) return [tooComplex];
    const refused = rootFields(document, operation).map((field) => missingRole(principal, field)).find((reason) => reason !== undefined);
    if (refused) {
      closeWith(context, CloseCode.Forbidden, refused);
      return [coded(refused, 'FORBIDDEN')];
    }
    if (Object.keys(context.subscriptions).length > MAX_SUBSCRIPTIONS_PER_SOCKET) {
      return [coded(`At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions run at once on one socket; complete one first`, 'BAD_REQUEST')];
    }
    rememberOperation(document, payload.query, payload.operationName, payload.variables);
    return {
      schema,
      document,
      operationName: payload.operationName,
      variableValues: payload.variables,
      contextValue: contextFor(principal, this.incidents),
    };
  }
}
