// The `diagnostics:` section is part of the experiment file's one schema (config/), which sits below diagnostics/.
export { DiagnosticsConfigSchema, type DiagnosticsConfig } from '../config/diagnostics.js';
