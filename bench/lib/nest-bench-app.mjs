/**
 * What the bench's Nest servers (the bare Nest baseline, the durable floor) share, in plain JS:
 * Nest's decorators applied by hand (no decorator syntax), the run's API key check, and serving
 * one controller as a child process (logger off, 127.0.0.1, exit when the parent closes stdin).
 */
import 'reflect-metadata';
import { Controller, Module, UnauthorizedException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/** Applies method decorators to `Class.prototype[method]`, as `@Decorator()` on a method would. */
export function decorateMethod(Class, method, decorators) {
  const proto = Class.prototype;
  Reflect.decorate(decorators, proto, method, Object.getOwnPropertyDescriptor(proto, method));
}

/** Parameter decorators in order (`[decorator, type]` each), plus the types TypeScript would emit. */
export function decorateParams(Class, method, params) {
  const proto = Class.prototype;
  params.forEach(([decorator], index) => decorator(proto, method, index));
  Reflect.defineMetadata(
    'design:paramtypes',
    params.map(([, type]) => type),
    proto,
    method,
  );
}

const expected = `Bearer ${process.env.BASELINE_API_KEY ?? ''}`;

/** 401 unless `authorization` carries the run's API key (BASELINE_API_KEY). */
export function authorize(authorization) {
  if (authorization !== expected) throw new UnauthorizedException();
}

/** Serves `ControllerClass` (its routes decorated) on `port` in a module of its own. */
export async function serveController(ControllerClass, port) {
  Controller()(ControllerClass);
  class BenchModule {}
  Module({ controllers: [ControllerClass] })(BenchModule);
  const app = await NestFactory.create(BenchModule, { logger: false });
  await app.listen(port, '127.0.0.1');
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
