/**
 * Reads a `deno run` task of deno.json as the arguments of a `deno` command, so that a process
 * started from code (a worker of `deno task start`, a test) gets exactly the task's grants.
 */

/** The project directory, with a trailing slash. */
export const projectRoot = new URL("..", import.meta.url).pathname;

/** `deno run --config=<deno.json> <task's flags> <absolute script path>` as an argument list. */
export function taskRunArgs(task: string): string[] {
  const config = JSON.parse(Deno.readTextFileSync(`${projectRoot}deno.json`));
  const line: unknown = config.tasks?.[task];
  if (typeof line !== "string") throw new Error(`deno.json has no task "${task}"`);
  const words = line.split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run") throw new Error(`${task} is not a deno run task`);
  const rest = words.slice(2).map((word) =>
    word.endsWith(".ts") && !word.startsWith("-") ? `${projectRoot}${word}` : word
  );
  return ["run", `--config=${projectRoot}deno.json`, ...rest];
}
