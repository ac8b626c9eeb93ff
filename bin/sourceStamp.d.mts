export declare const STAMP_FILE: string;
export declare function sourceStamp(root: string): string;
export declare function compiledIsCurrent(root: URL | string): boolean;
