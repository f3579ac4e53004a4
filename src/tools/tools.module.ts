import { Module } from '@nestjs/common';

/** Toolsets, built-in and HTTP tools, and the one tool execution path (being built). */
@Module({})
export class ToolsModule {}
