/**
 * Decorators applied by hand, for the Nest servers the bench runs as plain JS (no decorator
 * syntax): `decorateMethod` as `@Decorator()` on a method would, `decorateParams` as parameter
 * decorators plus the `design:paramtypes` TypeScript would emit, so a pipe sees the DTO.
 */
import 'reflect-metadata';

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
