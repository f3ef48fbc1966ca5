/**
 * The official TypeScript client: openapi-fetch typed by the service's own OpenAPI document
 * (client/schema.d.ts, `deno task client`), with credentials, cursor paging and problem+json
 * errors thrown as ApiError.
 */
import createFetchClient, {
  type Client,
  type FetchResponse,
  type MaybeOptionalInit,
} from "openapi-fetch";
import type { components, operations, paths } from "./schema.d.ts";
import { throwOnError } from "./errors.ts";

export { ApiError, UnexpectedResponse } from "./errors.ts";
export type { ProblemCode } from "./errors.ts";
export type { components, operations, paths };

/** Every named shape of the document: `Schemas["TaskCreate"]`, `Schemas["Problem"]`, ... */
export type Schemas = components["schemas"];

type Method = "get" | "post" | "put" | "patch" | "delete";

/** The paths that have `method`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends { [K in M]: unknown } ? P : never;
}[keyof paths];

type Init<P extends PathsWith<M>, M extends Method> = MaybeOptionalInit<paths[P], M>;

/** The optional or required second argument, as openapi-fetch types it. */
type InitArg<I> = object extends I ? [init?: I] : [init: I];

/** What a successful call answers, in `media` (JSON unless said). */
export type Answer<
  P extends PathsWith<M>,
  M extends Method,
  Media extends `${string}/${string}` = "application/json",
> = NonNullable<
  FetchResponse<paths[P][M] & Record<string | number, unknown>, object, Media>["data"]
>;

/** The GET paths that page with `cursor` and `X-Next-Cursor`. */
export type CursorPaths = {
  [P in PathsWith<"get">]: [NonNullable<Query<P>>] extends [never] ? never
    : "cursor" extends keyof NonNullable<Query<P>> ? P
    : never;
}[PathsWith<"get">];

type Query<P extends PathsWith<"get">> = paths[P]["get"] extends { parameters: { query?: infer Q } }
  ? Q
  : never;

/** One item of a cursor listing. */
export type Item<P extends CursorPaths> = Answer<P, "get"> extends (infer T)[] ? T : never;

/** Explore's query: filters, geo query, bbox, sort and paging. */
export type ExploreQuery = NonNullable<operations["getTasksExplore"]["parameters"]["query"]>;

export interface ClientOptions {
  /** The service's address, e.g. `http://localhost:8000`; calls go to its `/api/v1`. */
  baseUrl: string;
  /** An API key (`svc_…`), sent as `X-API-Key`. */
  apiKey?: string;
  /** A session token from POST /auth/token, sent as `Authorization: Bearer`. */
  token?: string;
  /** Another fetch (tests, proxies, retries). */
  fetch?: (request: Request) => Promise<Response>;
}

/** The client: one typed method per HTTP method, paging and explore in both formats. */
export interface MarketplaceClient {
  get<P extends PathsWith<"get">>(
    path: P,
    ...init: InitArg<Init<P, "get">>
  ): Promise<Answer<P, "get">>;
  post<P extends PathsWith<"post">>(
    path: P,
    ...init: InitArg<Init<P, "post">>
  ): Promise<Answer<P, "post">>;
  put<P extends PathsWith<"put">>(
    path: P,
    ...init: InitArg<Init<P, "put">>
  ): Promise<Answer<P, "put">>;
  patch<P extends PathsWith<"patch">>(
    path: P,
    ...init: InitArg<Init<P, "patch">>
  ): Promise<Answer<P, "patch">>;
  delete<P extends PathsWith<"delete">>(
    path: P,
    ...init: InitArg<Init<P, "delete">>
  ): Promise<Answer<P, "delete">>;
  /** Every item of a cursor listing, page after page, following `X-Next-Cursor`. */
  paginate<P extends CursorPaths>(
    path: P,
    ...init: InitArg<Init<P, "get">>
  ): AsyncGenerator<Item<P>>;
  /** One page of explore as JSON items. */
  explore(query?: ExploreQuery): Promise<Answer<"/tasks/explore", "get">>;
  /** One page of explore as a GeoJSON FeatureCollection (`Accept: application/geo+json`). */
  exploreGeoJson(
    query?: ExploreQuery,
  ): Promise<Answer<"/tasks/explore", "get", "application/geo+json">>;
  /** The openapi-fetch client underneath, for headers and anything else; it throws as this does. */
  raw: Client<paths, "application/json">;
}

type Untyped = (path: string, init?: object) => Promise<{ data?: unknown; response: Response }>;

/** A client for one credential (or none); make one per credential. */
export function createClient(options: ClientOptions): MarketplaceClient {
  const headers: Record<string, string> = {};
  if (options.apiKey) headers["X-API-Key"] = options.apiKey;
  if (options.token) headers["Authorization"] = `Bearer ${options.token}`;
  const raw = createFetchClient<paths, "application/json">({
    baseUrl: `${options.baseUrl.replace(/\/+$/, "")}/api/v1`,
    headers,
    fetch: options.fetch,
  });
  raw.use({ onResponse: ({ response }) => throwOnError(response) });
  const geo = createFetchClient<paths, "application/geo+json">({
    baseUrl: `${options.baseUrl.replace(/\/+$/, "")}/api/v1`,
    headers: { ...headers, Accept: "application/geo+json" },
    fetch: options.fetch,
  });
  geo.use({ onResponse: ({ response }) => throwOnError(response) });

  // openapi-fetch's methods are generic over the same path and init as ours; the casts bridge
  // the two signatures, and the answer's data is there since every error has thrown.
  const call = <M extends Method>(method: M) => {
    const send = raw[method.toUpperCase() as Uppercase<M>] as unknown as Untyped;
    return (async (path: string, init?: object) =>
      (await send(path, init)).data) as unknown as MarketplaceClient[M];
  };

  return {
    get: call("get"),
    post: call("post"),
    put: call("put"),
    patch: call("patch"),
    delete: call("delete"),
    async *paginate(path, ...[init]) {
      const params = (init as { params?: { query?: Record<string, unknown> } } | undefined)?.params;
      let cursor: string | undefined;
      do {
        const query = { ...params?.query, ...(cursor ? { cursor } : {}) };
        const get = raw.GET as unknown as Untyped;
        const { data, response } = await get(path, { ...init, params: { ...params, query } });
        yield* data as Item<typeof path>[];
        cursor = response.headers.get("X-Next-Cursor") ?? undefined;
      } while (cursor);
    },
    async explore(query) {
      const { data } = await raw.GET("/tasks/explore", { params: { query } });
      return data!;
    },
    async exploreGeoJson(query) {
      const { data } = await geo.GET("/tasks/explore", { params: { query } });
      return data!;
    },
    raw,
  };
}
