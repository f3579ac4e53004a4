import { ProblemException } from '../platform/http/problem.js';
import type { BuiltinTools } from './builtin/builtin-tools.js';
import { MAX_TOOLSETS_PER_TENANT } from './tool.limits.js';
import type { ToolsetRepository } from './toolset-repository.js';

/**
 * Refuses (409 `toolset-limit`) a write that would create one toolset too many for the tenant.
 * Best effort (replicas may race past it by a few): bounds what one tenant can store.
 */
export async function refuseNewToolsetOverLimit(
  repository: ToolsetRepository,
  builtins: BuiltinTools,
  tenantId: string,
  toolset: string,
): Promise<void> {
  if (builtins.has(toolset)) return; // every tenant has the built-in toolsets
  const names = await repository.names(tenantId);
  if (names.includes(toolset) || names.length < MAX_TOOLSETS_PER_TENANT) return;
  throw new ProblemException(
    409,
    `tenant "${tenantId}" already has ${MAX_TOOLSETS_PER_TENANT} toolsets`,
    'toolset-limit',
  );
}
