/**
 * Bad input from the user — arguments, config files, data files, model outputs that cannot
 * be used. The CLI prints the message (which names the file, line or field) and exits 2.
 */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/** A config file or a component spec in it is invalid. */
export class ConfigError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A data file (dataset, corpus, OCR JSON, JSONL) is malformed. */
export class DataFileError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'DataFileError';
  }
}
