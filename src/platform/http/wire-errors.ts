import { Global, Injectable, Module } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ProblemDetails, ProblemMembers } from './problem.js';

/**
 * Writes an error the way one wire's clients read errors (its body shape, its status): the
 * problem the REST API would answer, its extension members and headers.
 */
export type WireErrorWriter = (
  problem: { body: ProblemDetails; members: ProblemMembers; headers: Record<string, string> },
  req: Request,
  res: Response,
) => void;

interface Wire {
  matches: (method: string, path: string) => boolean;
  write: WireErrorWriter;
}

/**
 * The error shapes of the wires that are not the gateway's own REST API (the OpenAI-compatible
 * routes, A2A's JSON-RPC and HTTP+JSON bindings). A feature registers its routes here, and the
 * one global ProblemFilter writes every error of those routes in that wire's shape, including
 * the errors raised before a route is chosen (malformed or oversized JSON, an unknown sub-path)
 * that no controller-scoped filter sees. The platform thus knows no feature.
 */
@Injectable()
export class WireErrors {
  private readonly wires: Wire[] = [];

  register(matches: Wire['matches'], write: WireErrorWriter): void {
    this.wires.push({ matches, write });
  }

  /** The writer of the wire `req` belongs to, or undefined for the REST API's problem bodies. */
  writerFor(req: Request): WireErrorWriter | undefined {
    const path = (req.originalUrl ?? req.url ?? '').split('?', 1)[0];
    return this.wires.find((wire) => wire.matches(req.method, path))?.write;
  }

  /** Whether errors of `method path` (a route's template) are in another wire's shape. */
  owns(method: string, path: string): boolean {
    return this.wires.some((wire) => wire.matches(method.toUpperCase(), path));
  }
}

@Global()
@Module({ providers: [WireErrors], exports: [WireErrors] })
export class WireErrorsModule {}
