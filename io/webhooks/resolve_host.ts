/** Name resolution for webhook targets: the addresses a host name has at this moment. */

/** A's and AAAA's of a host; a name that resolves to nothing is unreachable. */
export async function resolveHost(host: string): Promise<string[]> {
  const answers = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
  ]);
  return answers.flatMap((a) => a.status === "fulfilled" ? a.value : []);
}
