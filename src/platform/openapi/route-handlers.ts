import type { INestApplication, Type } from '@nestjs/common';
import { PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import type { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';

/** A controller method that serves a route. */
export interface RouteHandler {
  controller: Type;
  method: string;
  /** The method itself: where Nest's method decorators keep their metadata. */
  handler: (...args: never[]) => unknown;
}

/** One param of a route handler, as Nest's param decorators recorded it. */
export interface RouteArgument {
  /** What the param is (`@Body()`, `@Query()`, …); NaN for a custom decorator's. */
  kind: RouteParamtypes;
  index: number;
  /** `@Query('name')`: one field rather than the whole object. */
  data?: unknown;
  /** The pipes given to the decorator itself (`@Body(SomePipe)`). */
  pipes: unknown[];
  /** The param's declared type (`design:paramtypes`). */
  type: unknown;
}

/** The params of a route handler that Nest fills from the request. */
export function routeArguments(route: RouteHandler): RouteArgument[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, route.controller, route.method) ??
    {}) as Record<string, { index: number; data?: unknown; pipes?: unknown[] }>;
  const types = (Reflect.getMetadata(
    'design:paramtypes',
    route.controller.prototype as object,
    route.method,
  ) ?? []) as unknown[];
  return Object.entries(args).map(([key, arg]) => ({
    kind: Number(key.split(':')[0]),
    index: arg.index,
    data: arg.data,
    pipes: arg.pipes ?? [],
    type: types[arg.index],
  }));
}

/**
 * Every route handler of the app's controllers by the operation id @nestjs/swagger gives its
 * operation (`Controller_method`, the default id factory), so the document's operations can be
 * completed from the metadata Nest routes by (guards, parameters, filters). Two mounted
 * controllers of one class name would make two operations one id, which OpenAPI forbids: the
 * build fails (and the OpenAPI e2e test with it) rather than describe one route as the other.
 */
export function routeHandlers(app: INestApplication): Map<string, RouteHandler> {
  const scanner = new MetadataScanner();
  const handlers = new Map<string, RouteHandler>();
  const owners = new Map<string, Type>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type | null;
      if (!controller) continue;
      const owner = owners.get(controller.name);
      if (owner === controller) continue;
      if (owner) {
        throw new Error(
          `two controllers are named ${controller.name}: their OpenAPI operation ids would collide; rename one`,
        );
      }
      owners.set(controller.name, controller);
      const prototype = controller.prototype as Record<string, unknown>;
      for (const method of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[method];
        if (typeof handler !== 'function') continue;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        handlers.set(`${controller.name}_${method}`, {
          controller,
          method,
          handler: handler as RouteHandler['handler'],
        });
      }
    }
  }
  return handlers;
}

/**
 * The handler of an operation. @nestjs/swagger suffixes the id of an `@All` route's operations
 * with their method (`_get`) and of a route with several paths with an index (`[1]`).
 */
export function handlerOf(
  handlers: ReadonlyMap<string, RouteHandler>,
  operationId: string | undefined,
): RouteHandler | undefined {
  if (operationId === undefined) return undefined;
  return (
    handlers.get(operationId) ??
    handlers.get(operationId.replace(/_[a-z]+$/, '')) ??
    handlers.get(operationId.replace(/\[\d+\](_[a-z]+)?$/, ''))
  );
}
