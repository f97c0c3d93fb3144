/**
 * Writes bytes to the server as they are, over a plain TCP socket, and reads the answer's
 * status line. For requests no HTTP client library would send: NUL bytes, raw non-UTF-8,
 * broken framing. The connection is closed by the server or after the answer arrives.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

export function sendBytes(port: number, bytes: Buffer | string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      if (match === null) {
        reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      resolve({ status: Number(match[1]), head, body: split < 0 ? '' : text.slice(split + 4) });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (isComplete(Buffer.concat(chunks).toString('latin1'))) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (error) => {
      // A reset after the answer was written still leaves the answer to read.
      if (chunks.length > 0) finish();
      else if (!settled) {
        settled = true;
        reject(error);
      }
    });
    socket.setTimeout(10_000, () => finish());
    socket.write(bytes);
  });
}

/** A whole answer has arrived: the head, and as many body bytes as Content-Length says. */
function isComplete(text: string): boolean {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, split));
  if (length === null) return false;
  return Buffer.byteLength(text.slice(split + 4), 'latin1') >= Number(length[1]);
}
