// Sluice admin dashboard: reads the admin API (/api/v1/rules, /stats, /audit, /status) once a second and
// renders rules and tiers, live decisions per rule, the top throttled identities and recent changes, and says when
// the rules are read-only through the admin API, and why (/status: repository.readOnly, readOnlyReason).
// Plain ES module, no dependencies. Every value from the API is written with textContent (never as HTML).
// Each URL is fetched with If-None-Match, so an unchanged resource costs a 304. A token typed into the page
// (for token-protected reads) is kept in sessionStorage only, for this tab.

const API = "/api/v1";
const POLL_MS = 1000;
const TOKEN_KEY = "sluice-admin-token";
const AUDIT_ROWS = 12;

/** Last answer per URL: its ETag and parsed body. */
const cache = new Map();

const $ = (id) => document.getElementById(id);

function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

/** An element with a class and text. */
function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = String(text);
  return e;
}

class ApiError extends Error {
  constructor(status, message, retryAfter) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

/** GETs a JSON resource of the admin API, revalidating with the last ETag. */
async function get(path) {
  const headers = { Accept: "application/json" };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  const last = cache.get(path);
  if (last) headers["If-None-Match"] = last.etag;
  const res = await fetch(API + path, { headers, cache: "no-store" });
  if (res.status === 304 && last) return last.body;
  if (!res.ok) {
    let detail = res.statusText;
    try {
      const problem = await res.json();
      detail = problem.detail ?? problem.title ?? detail;
    } catch {
      // Not problem details: keep the status text.
    }
    throw new ApiError(res.status, detail, res.headers.get("Retry-After"));
  }
  const body = await res.json();
  const etag = res.headers.get("ETag");
  if (etag) cache.set(path, { etag, body });
  return body;
}

// ------------------------------------------------------------------------------------------------ formatting

function formatRate(n) {
  if (n === 0) return "0";
  if (n >= 100) return Math.round(n).toLocaleString();
  return n.toFixed(n >= 10 ? 1 : 2);
}

function formatCount(n) {
  return Number(n).toLocaleString();
}

const UNITS = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1000],
];

function formatDuration(value) {
  if (typeof value === "string") return value;
  if (typeof value !== "number") return "?";
  for (const [unit, ms] of UNITS) if (value >= ms && value % ms === 0) return `${value / ms}${unit}`;
  return `${value}ms`;
}

// A limit as written; one that names no algorithm uses `defaultAlgorithm` (the configuration's default).
function formatLimit(l, defaultAlgorithm) {
  const period = l.period ?? l.periodMs;
  let text = `${formatCount(l.limit)} / ${formatDuration(period)}`;
  if (l.burst !== undefined && l.burst !== l.limit) text += `, burst ${formatCount(l.burst)}`;
  const algorithm = l.algorithm ?? defaultAlgorithm;
  if (algorithm) text += ` · ${algorithm}`;
  return l.name ? `${l.name}: ${text}` : text;
}

function formatLimits(limits, defaultAlgorithm) {
  if (limits === "unlimited") return ["unlimited"];
  if (!Array.isArray(limits)) return [];
  return limits.map((l) => formatLimit(l, defaultAlgorithm));
}

function formatMatch(entry) {
  if (entry.value !== undefined) return `${entry.key} = ${entry.value}`;
  if (entry.prefix !== undefined) return `${entry.key} starts with ${entry.prefix}`;
  if (entry.glob !== undefined) return `${entry.key} ~ ${entry.glob}`;
  if (entry.path !== undefined) return `${entry.key} path ${entry.path}`;
  return `${entry.key} (each value)`;
}

function formatTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString();
}

// ------------------------------------------------------------------------------------------------ rendering

/** A sparkline of per-second counts (allowed, denied, shadow) over the last minute. */
function sparkline(series) {
  const ns = "http://www.w3.org/2000/svg";
  const w = 180;
  const h = 30;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "spark");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("role", "img");
  if (!series) return svg;
  const all = [...series.allowed, ...series.denied, ...series.shadow];
  const max = Math.max(1, ...all);
  for (const kind of ["allowed", "shadow", "denied"]) {
    const values = series[kind];
    if (!values || values.every((v) => v === 0)) continue;
    const step = values.length > 1 ? w / (values.length - 1) : w;
    const points = values.map(
      (v, i) => `${(i * step).toFixed(1)},${(h - 1 - (v / max) * (h - 2)).toFixed(1)}`,
    );
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("class", kind);
    line.setAttribute("points", points.join(" "));
    svg.appendChild(line);
  }
  const peak = Math.max(...series.allowed.map((a, i) => a + series.denied[i] + series.shadow[i]));
  const title = document.createElementNS(ns, "title");
  title.textContent = `peak ${formatCount(peak)} decisions in one second`;
  svg.appendChild(title);
  return svg;
}

function rateCell(value, kind, field) {
  const td = el("td", `num ${value > 0 ? kind : "zero"}`, formatRate(value));
  td.dataset.field = field;
  return td;
}

function renderLive(rulesDoc, stats) {
  const tbody = $("live-table").querySelector("tbody");
  const byKey = new Map();
  for (const r of stats.rules) byKey.set(`${r.domain}\u0000${r.rule}`, r);
  const rows = [];
  const seen = new Set();
  for (const rule of rulesDoc.rules) {
    const key = `${rule.domain}\u0000${rule.id}`;
    seen.add(key);
    rows.push({ id: rule.id, domain: rule.domain, tally: byKey.get(key) });
  }
  // Rules the data plane still reports but the configuration no longer has (deleted, or from another source).
  for (const [key, r] of byKey)
    if (!seen.has(key)) rows.push({ id: r.rule, domain: r.domain, tally: r, gone: true });
  const fragment = document.createDocumentFragment();
  for (const row of rows) {
    const t = row.tally;
    const tr = el("tr");
    tr.dataset.ruleId = row.id;
    tr.dataset.domain = row.domain;
    const name = el("td", "mono", row.id);
    if (row.gone) name.title = "not in the current configuration";
    tr.append(name, el("td", "", row.domain));
    tr.append(
      rateCell(t ? t.allowedPerSec : 0, "allowed", "allowed"),
      rateCell(t ? t.deniedPerSec : 0, "denied", "denied"),
      rateCell(t ? t.shadowPerSec : 0, "shadow", "shadow"),
    );
    const spark = el("td");
    spark.appendChild(sparkline(t?.series));
    tr.append(spark);
    const totalAllowed = el("td", "num", formatCount(t ? t.totals.allowed : 0));
    totalAllowed.dataset.field = "total-allowed";
    const totalDenied = el("td", "num", formatCount(t ? t.totals.denied : 0));
    totalDenied.dataset.field = "total-denied";
    tr.append(totalAllowed, totalDenied);
    fragment.appendChild(tr);
  }
  tbody.replaceChildren(fragment);
  $("live-empty").hidden = rows.length > 0;
  $("live-hint").textContent = stats.recording
    ? `per second, averaged over the last ${Math.round((stats.rateWindowMs ?? 5000) / 1000)} s`
    : "the data plane is not recording decisions for this server";
}

function renderThrottled(stats) {
  const list = $("throttled-list");
  const fragment = document.createDocumentFragment();
  for (const t of stats.topThrottled.slice(0, 15)) {
    const li = el("li");
    li.dataset.identity = t.identity;
    li.append(el("span", "mono", t.identity));
    const count = el("span", "count", formatCount(t.count));
    if (t.error > 0) count.title = `at most ${formatCount(t.error)} of these may belong to other identities`;
    li.append(count);
    fragment.appendChild(li);
  }
  list.replaceChildren(fragment);
  $("throttled-empty").hidden = stats.topThrottled.length > 0;
}

// Rules as written, with what each inherits from `defaults` resolved by the API (`doc.effective`): a rule that
// leaves out its behaviour, failure policy, mode or a limit's algorithm runs with the default, never a fixed one.
function renderRules(doc) {
  const tbody = $("rules-table").querySelector("tbody");
  const fragment = document.createDocumentFragment();
  const effective = new Map((doc.effective ?? []).map((e) => [e.rule, e]));
  for (const rule of doc.rules) {
    const eff = effective.get(rule.id) ?? {};
    const algorithm = eff.algorithm ?? doc.defaults?.algorithm;
    const tr = el("tr");
    tr.dataset.ruleId = rule.id;
    const id = el("td");
    id.append(el("div", "mono", rule.id));
    if (rule.name && rule.name !== rule.id) id.append(el("div", "hint", rule.name));
    const match = el("td");
    for (const entry of rule.match ?? []) match.append(el("span", "tag", formatMatch(entry)));
    const limits = el("td");
    const lines = rule.blocked
      ? ["blocked"]
      : rule.unlimited
        ? ["unlimited"]
        : formatLimits(rule.limits, algorithm);
    for (const line of lines) limits.append(el("div", "", line));
    const tiers = el("td");
    for (const [tier, l] of Object.entries(rule.tiers ?? {})) {
      tiers.append(el("div", "", `${tier}: ${formatLimits(l, algorithm).join("; ")}`));
    }
    const behaviour = el("td");
    behaviour.dataset.field = "behaviour";
    const name = eff.behaviour ?? rule.behaviour ?? "?";
    const delay =
      name === "delay" && eff.maxDelayMs !== undefined ? ` ≤ ${formatDuration(eff.maxDelayMs)}` : "";
    behaviour.append(el("div", "", `${name}${delay}`));
    if (eff.mode !== undefined || eff.failurePolicy !== undefined) {
      behaviour.append(el("div", "hint", `mode ${eff.mode ?? "?"} · ${eff.failurePolicy ?? "?"}`));
    }
    if (rule.behaviour === undefined && eff.behaviour !== undefined) behaviour.title = "from defaults";
    tr.append(id, el("td", "", rule.domain), match, limits, tiers, behaviour);
    fragment.appendChild(tr);
  }
  tbody.replaceChildren(fragment);
  const tiers = doc.tiers ?? [];
  $("tiers").textContent = tiers.length > 0 ? `Tiers: ${tiers.join(", ")}` : "Tiers: none declared";
}

function renderAudit(page) {
  const tbody = $("audit-table").querySelector("tbody");
  const fragment = document.createDocumentFragment();
  for (const entry of page.entries.slice(0, AUDIT_ROWS)) {
    const tr = el("tr");
    tr.dataset.auditId = entry.id;
    const when = el("td", "num", formatTime(entry.at));
    when.title = entry.at;
    const what = el("td");
    const details = el("details");
    details.append(el("summary", "", entry.action));
    details.append(el("pre", "mono", JSON.stringify({ before: entry.before, after: entry.after }, null, 2)));
    what.append(details);
    tr.append(when, el("td", "", entry.actor), what, el("td", "mono", entry.resource));
    fragment.appendChild(tr);
  }
  tbody.replaceChildren(fragment);
  $("audit-empty").hidden = page.entries.length > 0;
}

// The rules cannot be changed through the admin API (an envoyproxy/ratelimit file, a read-only mount): say why.
function renderReadOnly(repository) {
  const notice = $("rules-read-only");
  const readOnly = repository?.readOnly === true;
  notice.hidden = !readOnly;
  notice.textContent = readOnly
    ? `Read-only through the admin API: ${repository.readOnlyReason ?? "no reason given"}`
    : "";
}

function setStatus(text, kind) {
  const s = $("status");
  s.textContent = text;
  s.className = `status ${kind}`;
}

// ------------------------------------------------------------------------------------------------ polling

let timer;

async function refresh() {
  try {
    const [rules, stats, audit, status] = await Promise.all([
      get("/rules"),
      get("/stats"),
      get(`/audit?limit=${AUDIT_ROWS}`),
      get("/status"),
    ]);
    renderRules(rules);
    renderLive(rules, stats);
    renderThrottled(stats);
    renderAudit(audit);
    renderReadOnly(status.repository);
    const lastError = status.config.lastError;
    if (lastError) {
      setStatus(
        `The last configuration change was refused (the previous one stays): ${lastError.message}`,
        "warn",
      );
    } else {
      const readOnly = status.repository?.readOnly ? " (read-only)" : "";
      setStatus(`Live · configuration v${rules.version}${readOnly} · ${formatTime(stats.at)}`, "ok");
    }
    document.body.dataset.state = "live";
  } catch (error) {
    document.body.dataset.state = "error";
    if (error instanceof ApiError && error.status === 401) {
      setStatus(token() ? "The token was refused." : "Reads need a token: enter one above.", "error");
    } else if (error instanceof ApiError && error.status === 429) {
      setStatus(`Rate limited by the admin API; retrying in ${error.retryAfter ?? "a few"} s.`, "warn");
    } else {
      setStatus(`Cannot reach the admin API: ${error.message}`, "error");
    }
  }
  schedule(POLL_MS);
}

function schedule(ms) {
  clearTimeout(timer);
  timer = setTimeout(() => {
    if (document.visibilityState === "hidden") schedule(ms);
    else refresh();
  }, ms);
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const value = $("token").value.trim();
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  $("token").value = "";
  cache.clear();
  refresh();
});

$("token-forget").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  cache.clear();
  refresh();
});

document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") refresh();
});

refresh();
