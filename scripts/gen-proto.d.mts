/** The .proto files served, relative to proto/ (their imports come along). */
export declare const PROTO_FILES: readonly string[];
/** The pbjs arguments, without the output path and the input files. */
export declare function pbjsArgs(): string[];
/** Writes protos.js and protos.d.ts into `outDir`; resolves with the path of protos.js. */
export declare function generate(outDir: string): Promise<string>;
