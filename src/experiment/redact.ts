const SECRET_KEY = /authorization|api[-_]?key|secret|password|token|cookie/i;

/**
 * Copies a config value with secret-looking fields replaced, so a key pasted into a header or
 * param by mistake never reaches run directories, logs or reports. `apiKeyEnv` (the *name* of
 * an environment variable) is kept: it is how keys are meant to be given.
 */
export function redactSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key === 'apiKeyEnv' || key === 'maxTokens' || key === 'tokenizer') out[key] = redactSecrets(v);
      else if (SECRET_KEY.test(key) && (typeof v === 'string' || typeof v === 'number')) out[key] = '[redacted]';
      else out[key] = redactSecrets(v);
    }
    return out as T;
  }
  return value;
}
