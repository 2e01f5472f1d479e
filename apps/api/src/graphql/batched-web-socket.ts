import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import { flushTick } from '../live/flush-tick';
import { SEND_BUFFER_LIMIT_BYTES } from '../live/live-stream';

type SendOptions = Parameters<WebSocket['send']>[1];
type SendCallback = (error?: Error) => void;

/**
 * The server's side of a graphql-ws socket. graphql-ws waits for each message
 * to be written before it takes the next item (ws calls back once the bytes
 * reach the kernel): one system call and one event-loop turn per message and
 * subscriber. Here a send is queued and answered at once, and the socket's
 * messages go out together on the live flush tick (corked until then), as the
 * SSE streams' do. What a subscriber may hold unsent is bounded in bytes
 * instead: past SEND_BUFFER_LIMIT_BYTES its connection is cut, and the
 * graphql-ws client reconnects and subscribes again.
 */
export class BatchedWebSocket extends WebSocket {
  /** The TCP connection under the socket, set when the upgrade completes (graphql-ws.server.ts). */
  transport?: Socket;
  private corked = false;

  override send(data: Parameters<WebSocket['send']>[0], optionsOrCallback?: SendOptions | SendCallback, callback?: SendCallback): void {
    const options = typeof optionsOrCallback === 'function' ? {} : (optionsOrCallback ?? {});
    const done = typeof optionsOrCallback === 'function' ? optionsOrCallback : callback;
    if (this.readyState !== WebSocket.OPEN || !this.transport) return super.send(data, options, done);
    this.corkUntilTick(this.transport);
    super.send(data, options);
    if (this.bufferedAmount > SEND_BUFFER_LIMIT_BYTES) this.terminate();
    done?.();
  }

  private corkUntilTick(transport: Socket): void {
    if (this.corked) return;
    this.corked = true;
    transport.cork();
    flushTick.wait(() => {
      this.corked = false;
      transport.uncork();
    });
  }
}
