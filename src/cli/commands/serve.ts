import type { Command } from 'commander';

// Filled in by the stage that owns these commands.
export function registerServeCommands(_program: Command): void {}
