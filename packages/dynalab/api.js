// The package's API over the WebAssembly engine. Requests and responses are DynamoDB JSON objects
// (attribute values as {"S": "..."}), exactly what the service's API takes and returns.
import {
  RawEngine, operations as rawOperations, check as rawCheck, compare as rawCompare, version as rawVersion,
} from './wasm/dynalab.js';

export { DynalabHandler, clientConfig } from './handler.js';

/** An error DynamoDB would answer: `name` is its exception name, `message` its message. */
export class DynamoDBError extends Error {
  constructor(facts) {
    super(facts.message);
    this.name = facts.name;
    /** The wire type, e.g. `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException`. */
    this.type = facts.type;
    this.statusCode = facts.statusCode;
    /** The error body as the service sends it. */
    this.body = facts.body;
    if (facts.body?.CancellationReasons) this.CancellationReasons = facts.body.CancellationReasons;
    if (facts.body?.Item) this.Item = facts.body.Item;
  }
}

/** A design that could not be checked: every problem, and what an import noted. */
export class DesignError extends Error {
  constructor(raw) {
    super(raw.message);
    this.name = 'DesignError';
    this.problems = [...(raw.problems ?? [raw.message])];
    this.notes = [...(raw.notes ?? [])];
  }
}

function rethrow(error) {
  if (error && typeof error === 'object' && 'statusCode' in error && 'body' in error) throw new DynamoDBError(error);
  if (error?.name === 'DesignError') throw new DesignError(error);
  throw error;
}

const asText = (request) => (typeof request === 'string' ? request : JSON.stringify(request ?? {}));

/** One in-memory DynamoDB: tables, items, indexes, streams, TTL and a lab clock. */
export class Engine {
  #raw;

  /** @param {{ now?: number }} [options] `now`: a fixed start for the clock (ms since the epoch). */
  constructor(options = {}) {
    this.#raw = options[rawKey] ?? new RawEngine(options.now);
  }

  /** Runs an operation by its DynamoDB name; returns the response object or throws a DynamoDBError. */
  execute(operation, request = {}) {
    let body;
    try {
      body = this.#raw.execute(operation, asText(request));
    } catch (error) {
      rethrow(error);
    }
    return body ? JSON.parse(body) : {};
  }

  /** Runs an operation and says what it cost and why: `{ response, error, capacity }`. */
  explain(operation, request = {}) {
    const answer = JSON.parse(this.#raw.explain(operation, asText(request)));
    return {
      response: answer.response ?? undefined,
      error: answer.error ? new DynamoDBError(answer.error) : undefined,
      capacity: answer.capacity,
    };
  }

  /** One request as DynamoDB's JSON 1.0 protocol carries it: `{ status, body, crc32 }`. */
  exchange(target, body) {
    const answer = this.#raw.exchange(target, body);
    try {
      return { status: answer.status, body: answer.body, crc32: answer.crc32 };
    } finally {
      answer.free();
    }
  }

  /** Every table, TTL setting and item, as a workspace file the playground also opens. */
  snapshot() {
    return this.#raw.snapshot();
  }

  /** A new engine holding a snapshot; throws (and makes nothing) if any part of it does not load. */
  static restore(snapshot, options = {}) {
    return new Engine({ [rawKey]: RawEngine.restore(snapshot, options.now) });
  }

  /** The lab clock, ms since the epoch. */
  now() {
    return this.#raw.now();
  }

  /** Moves the lab clock forward and runs TTL expiry; returns how many items expired. */
  advanceClock(milliseconds) {
    return this.#raw.advanceClock(milliseconds);
  }

  /** Runs TTL expiry now; returns how many items expired. */
  expire() {
    return this.#raw.expire();
  }

  /** Frees the engine's memory now rather than when it is collected. */
  free() {
    this.#raw.free();
  }
}

const rawKey = Symbol('raw engine');

/** The name of every operation the engine runs (DynamoDB's and DynamoDB Streams'). */
export function operations() {
  return rawOperations();
}

/** The package's version. */
export function version() {
  return rawVersion();
}

const designText = (design) => (typeof design === 'string' ? design : JSON.stringify(design));

/**
 * `dynalab check` from JavaScript: plans and runs every access pattern of a design (a workbook or
 * any format the CLI reads) and returns `{ source, notes, verdict, report, markdown }`. Throws a
 * DesignError listing every problem when nothing could run.
 */
export function check(design, options = {}) {
  try {
    // The report arrives as an object (built in the engine, not parsed here).
    return rawCheck(designText(design), options.now);
  } catch (error) {
    rethrow(error);
  }
}

/** Two designs checked side by side: `{ report, markdown }`. */
export function compare(a, b, options = {}) {
  try {
    return rawCompare(designText(a), designText(b), options.now);
  } catch (error) {
    rethrow(error);
  }
}
