// One admin API call (`/api/v1…` on an admin port) with a bearer token, JSON in and out: the tests' shared client.
import { request } from "undici";

/** What an admin API call answered: its status, content type, ETag and JSON body (`{}` when it has none). */
export interface AdminAnswer {
  readonly status: number;
  readonly type: string;
  readonly etag: string | undefined;
  readonly body: Record<string, unknown>;
}

/** Sends `method path` (below `/api/v1`) to the admin API on 127.0.0.1:`port` with `token`; `body` as JSON. */
export async function adminRequest(
  port: number,
  token: string,
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
): Promise<AdminAnswer> {
  const res = await request(`http://127.0.0.1:${port}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  const etag = res.headers.etag;
  return {
    status: res.statusCode,
    type: String(res.headers["content-type"]),
    etag: typeof etag === "string" ? etag : undefined,
    body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
  };
}
