import { Body, Param, Query } from '@nestjs/common';
import { RequestValidationPipe } from './validation.pipe.js';

/*
 * Request DTOs are validated by a pipe on the param that takes them, not by a global pipe: Nest
 * runs a global pipe on every param of every route that pipes may touch, custom decorators'
 * values and path strings included, and each param a pipe runs on costs the request about eight
 * promises (with the context hooks on each) even when the pipe has nothing to do. A tool call has
 * five params and one DTO: 115 promises per request with the global pipe, 67 without (about 8 %
 * less CPU per tool call in an A/B). test/request-validation.e2e-spec.ts walks every route and
 * fails on a client value that does not go through the pipe.
 */

/** The request body as its DTO, validated: a 400 problem otherwise. */
export const ValidBody = (): ParameterDecorator => Body(RequestValidationPipe);

/** The query string as its DTO, validated: a 400 problem otherwise. */
export const ValidQuery = (): ParameterDecorator => Query(RequestValidationPipe);

/** The path params as their DTO, validated: a 400 problem otherwise. */
export const ValidParams = (): ParameterDecorator => Param(RequestValidationPipe);
