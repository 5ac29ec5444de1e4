// An AWS SDK for JavaScript v3 request handler that answers from an in-process engine: a client
// built with it sends nothing over the network, and gets the bytes `dynalab serve` would send.
import { Engine } from './api.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function header(headers, name) {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

async function bodyText(body) {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return decoder.decode(body);
  if (body instanceof ArrayBuffer) return decoder.decode(new Uint8Array(body));
  if (typeof body.getReader === 'function' || typeof body[Symbol.asyncIterator] === 'function') {
    const chunks = [];
    for await (const chunk of body) chunks.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
    return decoder.decode(await new Blob(chunks).arrayBuffer());
  }
  throw new TypeError('dynalab: the request body is of a kind the handler does not read');
}

function aborted() {
  const error = new Error('Request aborted');
  error.name = 'AbortError';
  return error;
}

let handlers = 0;

/** `new DynamoDBClient({ requestHandler: new DynalabHandler(engine) })`. */
export class DynalabHandler {
  constructor(engine) {
    this.engine = engine ?? new Engine();
    this.metadata = { handlerProtocol: 'dynalab/in-process' };
    this.requests = 0;
    this.id = (handlers += 1);
  }

  async handle(request, options = {}) {
    if (options.abortSignal?.aborted) throw aborted();
    const target = header(request.headers, 'x-amz-target') ?? '';
    const answer = this.engine.exchange(target, await bodyText(request.body));
    this.requests += 1;
    const requestId = `${this.id.toString(16).padStart(8, '0')}DYNALAB${this.requests.toString(16).padStart(20, '0')}`.toUpperCase();
    return {
      response: {
        statusCode: answer.status,
        reason: answer.status === 200 ? 'OK' : 'Bad Request',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-crc32': String(answer.crc32),
          'x-amzn-requestid': requestId,
        },
        body: encoder.encode(answer.body),
      },
    };
  }

  updateHttpClientConfig() {}

  httpHandlerConfigs() {
    return {};
  }

  destroy() {}
}

/**
 * The configuration of a DynamoDB (or DynamoDB Streams) client on an engine: a region, lab
 * credentials (so the SDK never looks for real ones) and the handler.
 * `new DynamoDBClient(clientConfig(engine))`.
 */
export function clientConfig(engine, extra = {}) {
  return {
    region: 'us-east-1',
    credentials: { accessKeyId: 'dynalab', secretAccessKey: 'dynalab' },
    requestHandler: new DynalabHandler(engine),
    ...extra,
  };
}
