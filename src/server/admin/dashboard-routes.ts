/**
 * The dashboard: a static single page (`dashboard/index.html`, `dashboard.js`, `dashboard.css`, plain ES modules,
 * no build step) served at `/dashboard/` (`/` and `/dashboard` redirect there). The files are read once, from
 * beside this module (the build copies them into `dist/server/admin/dashboard/`), and kept in memory. They
 * hold no data: the page reads the admin API from the browser, so they need neither a token nor a quota.
 * Responses forbid inline scripts and any other origin (`Content-Security-Policy`), framing and sniffing.
 */
import { readFile } from "node:fs/promises";
import type { FastifyInstance, FastifyReply } from "fastify";
import { AdminProblem } from "./admin-problem.js";

/** The dashboard's files and their content types. */
export const DASHBOARD_FILES: Readonly<Record<string, string>> = {
  "index.html": "text/html; charset=utf-8",
  "dashboard.js": "text/javascript; charset=utf-8",
  "dashboard.css": "text/css; charset=utf-8",
};

const SECURITY_HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-cache",
};

/** Registers the dashboard routes on `app` (at the root, outside `/api/v1`). */
export function registerDashboardRoutes(app: FastifyInstance): void {
  const dir = new URL("./dashboard/", import.meta.url);
  const cache = new Map<string, Promise<Buffer>>();
  const load = (name: string): Promise<Buffer> => {
    let file = cache.get(name);
    if (file === undefined) {
      file = readFile(new URL(name, dir));
      cache.set(name, file);
      // A failed read is not cached: the next request tries again.
      file.catch(() => cache.delete(name));
    }
    return file;
  };
  const serve = (name: string) => async (_request: unknown, reply: FastifyReply) => {
    let body: Buffer;
    try {
      body = await load(name);
    } catch {
      throw new AdminProblem(404, "not-found", {
        detail: `the dashboard file ${name} is missing from the installation (expected beside the admin server module)`,
      });
    }
    return reply.headers(SECURITY_HEADERS).type(DASHBOARD_FILES[name]).send(body);
  };
  app.get("/", async (_request, reply) => reply.redirect("/dashboard/"));
  app.get("/dashboard", async (_request, reply) => reply.redirect("/dashboard/"));
  app.get("/dashboard/", serve("index.html"));
  for (const name of Object.keys(DASHBOARD_FILES)) app.get(`/dashboard/${name}`, serve(name));
}
