// Typed access to the mock Responses API in examples/mock-responses.mjs (one implementation for the
// demo and the acceptance tests).
import type { IncomingMessage } from 'node:http';
// @ts-expect-error: a plain ES module without declarations; the types are given below.
import { startMockResponses as start } from '../../examples/mock-responses.mjs';

type Json = Record<string, unknown>;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Json | undefined;
}

export interface MockResponses {
  port: number;
  baseUrl: string;
  requests: RecordedRequest[];
  /** The `input` of every model request, in order. */
  inputs(): Json[][];
  close(): Promise<void>;
}

/** Starts the mock; every model request is answered with one assistant message `reply`. */
export const startMockResponses: (reply?: string) => Promise<MockResponses> = start;
