import type { Command } from 'commander';

// Filled in by the stage that owns these commands.
export function registerModelCommands(_program: Command): void {}
