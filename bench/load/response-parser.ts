/**
 * An incremental HTTP/1.1 response parser for the load generator: status, raw header text,
 * and a body framed by Content-Length or chunked encoding. It does only what a keep-alive
 * client with one request in flight needs, and it is cheap on the common path.
 */
const CRLFCRLF = Buffer.from('\r\n\r\n');

export interface ParsedResponse {
  readonly status: number;
  /** The header block as latin1 text, status line included. */
  readonly head: string;
  readonly body: Buffer;
  /** The server said `Connection: close` (or spoke HTTP/1.0). */
  readonly close: boolean;
}

export class ResponseParser {
  #buffer: Buffer = Buffer.alloc(0);
  #head: string | undefined;
  #status = 0;
  #close = false;
  #length = -1; // -1: chunked
  #bodyStart = 0;

  /** Feeds bytes; returns the responses completed by them (usually zero or one). */
  push(chunk: Buffer): ParsedResponse[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const done: ParsedResponse[] = [];
    for (;;) {
      const response = this.#next();
      if (response === undefined) return done;
      done.push(response);
    }
  }

  #next(): ParsedResponse | undefined {
    if (this.#head === undefined && !this.#readHead()) return undefined;
    const body = this.#length >= 0 ? this.#fixedBody() : this.#chunkedBody();
    if (body === undefined) return undefined;
    const response = { status: this.#status, head: this.#head!, body, close: this.#close };
    this.#head = undefined;
    return response;
  }

  #readHead(): boolean {
    const end = this.#buffer.indexOf(CRLFCRLF);
    if (end < 0) return false;
    const head = this.#buffer.toString('latin1', 0, end);
    this.#head = head;
    this.#status = Number(head.slice(9, 12));
    // Servers spell header names one of two ways in practice; lowercase the head only
    // when neither spelling is there (the common path stays allocation-light).
    const length = findHeader(head, 'content-length', 'Content-Length');
    if (length !== undefined) {
      this.#length = Number.parseInt(length, 10);
    } else {
      const encoding = findHeader(head, 'transfer-encoding', 'Transfer-Encoding');
      this.#length = encoding !== undefined && /chunked/i.test(encoding) ? -1 : 0;
    }
    const connection = findHeader(head, 'connection', 'Connection');
    this.#close =
      head.startsWith('HTTP/1.0') || (connection !== undefined && /close/i.test(connection));
    this.#bodyStart = end + 4;
    return true;
  }

  #fixedBody(): Buffer | undefined {
    const end = this.#bodyStart + this.#length;
    if (this.#buffer.length < end) return undefined;
    const body = this.#buffer.subarray(this.#bodyStart, end);
    this.#buffer = this.#buffer.subarray(end);
    return body;
  }

  #chunkedBody(): Buffer | undefined {
    const parts: Buffer[] = [];
    let at = this.#bodyStart;
    for (;;) {
      const lineEnd = this.#buffer.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(this.#buffer.toString('latin1', at, lineEnd), 16);
      if (Number.isNaN(size)) throw new Error('Malformed chunked response.');
      if (size === 0) {
        // Trailers are not expected; the last chunk ends with an empty line.
        const end = this.#buffer.indexOf(CRLFCRLF, lineEnd);
        if (end < 0) return undefined;
        this.#buffer = this.#buffer.subarray(end + 4);
        return Buffer.concat(parts);
      }
      const dataEnd = lineEnd + 2 + size;
      if (this.#buffer.length < dataEnd + 2) return undefined;
      parts.push(this.#buffer.subarray(lineEnd + 2, dataEnd));
      at = dataEnd + 2;
    }
  }
}

function findHeader(head: string, lower: string, title: string): string | undefined {
  let at = head.indexOf(`\r\n${lower}:`);
  if (at < 0) at = head.indexOf(`\r\n${title}:`);
  if (at < 0) return headerValue(head, lower);
  const from = at + lower.length + 3;
  const end = head.indexOf('\r\n', from);
  return head.slice(from, end < 0 ? undefined : end).trim();
}

/** The value of one header (first occurrence, case-insensitive) from a parsed head. */
export function headerValue(head: string, name: string): string | undefined {
  const lower = head.toLowerCase();
  const at = lower.indexOf(`\r\n${name.toLowerCase()}:`);
  if (at < 0) return undefined;
  const from = at + name.length + 3;
  const end = head.indexOf('\r\n', from);
  return head.slice(from, end < 0 ? undefined : end).trim();
}

/** Every value of a repeated header such as Set-Cookie. */
export function headerValues(head: string, name: string): string[] {
  const wanted = `${name.toLowerCase()}:`;
  return head
    .split('\r\n')
    .filter((line) => line.toLowerCase().startsWith(wanted))
    .map((line) => line.slice(wanted.length).trim());
}
