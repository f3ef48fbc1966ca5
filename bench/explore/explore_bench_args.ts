/**
 * The explore benchmark's command-line options, read alike by the orchestrator and each phase's
 * process: one `--name=value`, and the query kinds that `--kinds` selects.
 */
import { type QueryKind, queryKinds } from "../datasets/explore_data_queries.ts";

/** The value of `--name=value` among this process's arguments. */
export function arg(name: string): string | undefined {
  const prefix = `--${name}=`;
  return Deno.args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/** The query kinds measured: all, or those whose name contains --kinds=text. */
export function selectedKinds(count: number, seed?: number): QueryKind[] {
  const only = arg("kinds");
  return queryKinds(count, seed).filter((k) => !only || k.name.includes(only));
}
