/**
 * The `sluice` command line. Each subcommand lives in its own module and registers itself on the program;
 * adding one is a line in {@link COMMANDS}. User errors (a {@link SluiceError} or a bad command line) print one
 * line to stderr and exit 2; anything else is a bug and prints its stack, exiting 1.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { SluiceError } from "../core/errors.js";
import { registerServe } from "./serve.js";
import { registerSimulate } from "./simulate.js";
import { registerValidate } from "./validate.js";

/** Registers one subcommand on the program. */
export type RegisterCommand = (program: Command) => void;

/** Every subcommand, in the order `sluice --help` lists them. */
export const COMMANDS: readonly RegisterCommand[] = [registerServe, registerSimulate, registerValidate];

/** Exit code of a user error (bad option, invalid limit or configuration). */
export const EXIT_USAGE = 2;

/** Thrown by a command that has printed its own result to end with `exitCode` (`validate` on an invalid file: 1). */
export class CommandExit extends Error {
  /** The process exit code. */
  readonly exitCode: number;

  /** Creates the signal to exit with `exitCode`. */
  constructor(exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = "CommandExit";
    this.exitCode = exitCode;
  }
}

function packageVersion(): string {
  // src/cli/main.ts and dist/cli/main.js both sit two levels below the package root.
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** Builds the `sluice` program with every subcommand registered; commander errors throw instead of exiting. */
export function createProgram(): Command {
  const program = new Command("sluice")
    .description("Sluice rate limiting: run the service, simulate and compare algorithms, validate rules")
    .version(packageVersion(), "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .showSuggestionAfterError()
    .exitOverride();
  for (const register of COMMANDS) register(program);
  return program;
}

/**
 * `argv` without its help flags when its first operand names no command: commander answers `sluice nope --help`
 * with the root help and exit code 0, so a script probing for a command (`sluice proxy --help`) would take it for
 * one; without the flags, commander reports the unknown command, with its suggestion, and exits non-zero.
 */
function withoutHelpOfUnknownCommand(program: Command, argv: readonly string[]): string[] {
  const first = argv[2];
  if (first === undefined || first.startsWith("-") || first === "help") return [...argv];
  if (program.commands.some((c) => c.name() === first || c.aliases().includes(first))) return [...argv];
  return argv.filter((a, i) => i < 2 || (a !== "--help" && a !== "-h"));
}

/** Runs the CLI on `argv` (as `process.argv`) and resolves to the exit code; never throws. */
export async function main(argv: readonly string[] = process.argv): Promise<number> {
  try {
    const program = createProgram();
    await program.parseAsync(withoutHelpOfUnknownCommand(program, argv));
    return 0;
  } catch (error) {
    if (error instanceof CommandExit) return error.exitCode;
    if (error instanceof CommanderError) {
      // Commander has already printed its message (or the help / version).
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    if (error instanceof SluiceError) {
      console.error(`sluice: ${error.code}: ${error.message}`);
      return EXIT_USAGE;
    }
    console.error("sluice: internal error:", error);
    return 1;
  }
}
