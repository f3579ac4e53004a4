import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import type { GatewayConfig } from './gateway-config.js';

/**
 * Makes an already validated GatewayConfig available as a global, typed ConfigService
 * (`ConfigService<GatewayConfig, true>`). Validation happens before Nest boots (loadConfig), so a
 * bad value stops the CLI with one line instead of a bootstrap stack trace, and each app instance in
 * a test can carry its own configuration instead of sharing process.env.
 */
@Module({})
export class GatewayConfigModule {
  static forRoot(config: GatewayConfig): Promise<DynamicModule> {
    return ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: true,
      skipProcessEnv: true,
      load: [() => ({ ...config })],
    });
  }
}
