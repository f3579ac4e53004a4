import { type Resource, defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type { TelemetryConfig } from '../config/gateway-config.js';
import { PACKAGE } from '../config/package-info.js';
import { ATTR_SERVICE_VERSION } from './semconv.js';

/**
 * The resource of this app's spans and metrics: the SDK's own attributes (`telemetry.sdk.*`),
 * the gateway's version, then OTEL_RESOURCE_ATTRIBUTES and `service.name` (configured values
 * win, as with the SDK's environment detector).
 */
export function telemetryResource(config: TelemetryConfig): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_VERSION]: PACKAGE.version }))
    .merge(resourceFromAttributes(config.resource));
}
