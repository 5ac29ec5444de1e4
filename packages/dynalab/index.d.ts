// Types of the dynalab package. Requests and responses are DynamoDB JSON (attribute values as
// { S: "..." }, { N: "1" }, ...): the shapes of the DynamoDB API, which @aws-sdk/client-dynamodb
// also types (e.g. `import type { QueryInput, QueryOutput } from "@aws-sdk/client-dynamodb"`).

export type JsonObject = { [key: string]: unknown };

/** An error DynamoDB would answer: `name` is the exception's name, `message` DynamoDB's message. */
export declare class DynamoDBError extends Error {
  /** e.g. "ConditionalCheckFailedException", "ValidationException", "TransactionCanceledException". */
  readonly name: string;
  /** The wire type, e.g. "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException". */
  readonly type: string;
  /** The HTTP status the service answers it with (400, 500, ...). */
  readonly statusCode: number;
  /** The error body as the service sends it. */
  readonly body: JsonObject;
  /** A TransactionCanceledException's reasons, one per action in request order. */
  readonly CancellationReasons?: JsonObject[];
  /** The item a failed condition returned (ReturnValuesOnConditionCheckFailure: "ALL_OLD"). */
  readonly Item?: JsonObject;
}

/** A design that could not be checked: nothing ran. */
export declare class DesignError extends Error {
  readonly name: "DesignError";
  /** Every problem, each with where it is in the file. */
  readonly problems: string[];
  /** What an import could not carry over. */
  readonly notes: string[];
}

/** One capacity charge: where, how many bytes, how many units, and why. */
export interface CapacityStep {
  table: string;
  index: string | null;
  kind: { Read: { consistent: boolean } } | "Write";
  /** The partition key value the units landed on (absent for a Scan). */
  partition?: string;
  bytes: number;
  units: number;
  why: string;
  /** e.g. "5000 B → 2 × 4 KB → ×½ eventually consistent = 1 RCU". */
  arithmetic: string;
}

export interface EngineOptions {
  /** A fixed start for the lab clock (ms since the epoch); it then moves only when advanced. Default: Date.now(). */
  now?: number;
}

/** One in-memory DynamoDB: tables, items, indexes, streams, TTL and a lab clock. */
export declare class Engine {
  constructor(options?: EngineOptions);
  /** Runs an operation by its DynamoDB name ("PutItem", "Query", "GetRecords", ...); throws DynamoDBError. */
  execute<Response extends JsonObject = JsonObject>(operation: string, request?: JsonObject | string): Response;
  /** Runs an operation and says what it cost and why. */
  explain<Response extends JsonObject = JsonObject>(operation: string, request?: JsonObject | string): {
    response?: Response;
    error?: DynamoDBError;
    capacity: CapacityStep[];
  };
  /** One request as DynamoDB's JSON 1.0 protocol carries it (what the SDK handler uses). */
  exchange(target: string, body: string): { status: number; body: string; crc32: number };
  /** Every table, TTL setting and item as a workspace file (the playground opens it too). Not kept: stream records, tags. */
  snapshot(): string;
  /** A new engine holding a snapshot; throws an Error named "SnapshotError" and makes nothing if any part does not load. */
  static restore(snapshot: string, options?: EngineOptions): Engine;
  /** The lab clock, ms since the epoch. */
  now(): number;
  /** Moves the lab clock forward, then runs TTL expiry; returns how many items expired. */
  advanceClock(milliseconds: number): number;
  /** Runs TTL expiry now; returns how many items expired. */
  expire(): number;
  /** Frees the engine's memory now instead of when it is garbage-collected. */
  free(): void;
}

/** An AWS SDK for JavaScript v3 request handler answering from an engine in this process. */
export declare class DynalabHandler {
  constructor(engine?: Engine);
  readonly engine: Engine;
  readonly metadata: { handlerProtocol: string };
  handle(request: { headers: Record<string, string>; body?: unknown }, options?: { abortSignal?: AbortSignal }): Promise<{
    response: { statusCode: number; reason?: string; headers: Record<string, string>; body: Uint8Array };
  }>;
  updateHttpClientConfig(key: never, value: never): void;
  httpHandlerConfigs(): Record<string, never>;
  destroy(): void;
}

/**
 * A DynamoDB (or DynamoDB Streams) client configuration on an engine: region us-east-1, lab
 * credentials (so the SDK never looks for real ones) and the handler, merged with `extra`.
 * `new DynamoDBClient(clientConfig(engine))`.
 */
export declare function clientConfig<Extra extends object = {}>(engine?: Engine, extra?: Extra): {
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  requestHandler: DynalabHandler;
} & Extra;

/** The result of checking a design: the same report `dynalab check --format json` writes. */
export interface CheckResult {
  /** Which format the design was read as. */
  source: string;
  /** What the import could not carry over. */
  notes: string[];
  verdict: "pass" | "warn" | "fail";
  report: JsonObject & { verdict: "pass" | "warn" | "fail"; patterns: JsonObject[] };
  /** The design note, in Markdown. */
  markdown: string;
}

/** Plans and runs every access pattern of a design (a workbook or any format `dynalab check` reads). Throws DesignError. */
export declare function check(design: string | JsonObject, options?: EngineOptions): CheckResult;

/** Two designs checked side by side. Throws DesignError. */
export declare function compare(a: string | JsonObject, b: string | JsonObject, options?: EngineOptions): {
  report: JsonObject;
  markdown: string;
};

/** The name of every operation the engine runs. */
export declare function operations(): string[];

/** The package's version. */
export declare function version(): string;
