import { describe, expect, it } from '@jest/globals';
import * as swagger from '@nestjs/swagger';
import { ApiBody, ApiOperation, ApiParam, SWAGGER_METADATA } from './api-decorators.js';

class Body {}

/** The metadata `decorators` leave on a method, under both keys. */
function metadataOf(decorators: MethodDecorator[]): unknown[] {
  class Routes {
    handler(): void {}
  }
  const descriptor = Object.getOwnPropertyDescriptor(Routes.prototype, 'handler')!;
  Reflect.decorate(decorators, Routes.prototype, 'handler', descriptor);
  return [
    Reflect.getMetadata(SWAGGER_METADATA.API_OPERATION, descriptor.value as object),
    Reflect.getMetadata(SWAGGER_METADATA.API_PARAMETERS, descriptor.value as object),
  ];
}

describe('the local @nestjs/swagger decorators', () => {
  it('use the keys of the library', () => {
    expect(SWAGGER_METADATA.API_OPERATION).toBe(swagger.DECORATORS.API_OPERATION);
    expect(SWAGGER_METADATA.API_PARAMETERS).toBe(swagger.DECORATORS.API_PARAMETERS);
  });

  it.each([
    ['an operation', [{ summary: 's', description: 'd' }], [], []],
    ['an operation without description', [{ summary: 's', description: undefined }], [], []],
    ['a body class', [{ summary: 's' }], [{ type: Body, description: 'b' }], []],
    ['a body class in an array', [], [{ type: [Body] }], []],
    ['a body schema', [{ summary: 's' }], [{ schema: { type: 'object' } }], []],
    ['a path parameter', [{ summary: 's' }], [], [{ name: 'path', description: 'p' }]],
    ['a body and a parameter', [], [{ type: Body }], [{ name: 'a' }]],
  ] as const)('leave the metadata of the library: %s', (_name, operations, bodies, params) => {
    const ours = metadataOf([
      ...operations.map((options) => ApiOperation(options)),
      ...bodies.map((options) => ApiBody(options)),
      ...params.map((options) => ApiParam(options)),
    ]);
    const library = metadataOf([
      ...operations.map((options) => swagger.ApiOperation(options)),
      ...bodies.map((options) => swagger.ApiBody(options as swagger.ApiBodyOptions)),
      ...params.map((options) => swagger.ApiParam(options)),
    ]);
    expect(ours).toEqual(library);
  });
});
