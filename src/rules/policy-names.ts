/**
 * The names policies are advertised under (draft-ietf-httpapi-ratelimit-headers-10's `RateLimit-Policy` and
 * `RateLimit` items, the check API's `policies`, problem details' `violated-policies`), derived from the configuration
 * alone so that one policy bears one name in every answer of that configuration: the draft asks the policy field to
 * "remain consistent over a sequence of HTTP responses", and a client pairs a `RateLimit` item with its policy, across
 * answers, by name.
 *
 * **The model.** A policy is one named limit of one rule (`LimitSpec.name`, or a `blocked` rule's `Rule.name`). A
 * rule's policy names are those of its `limits`, of every tier's limits, and of the overrides that can apply to it
 * (naming it, or naming no rule with an identity of its identity key), since an identity's override or tier limits
 * replace the rule's own under the same rule. One check is of one domain, so names need to be unique within a domain:
 * - a name that only one rule of the domain has is advertised as is (`per-second`);
 * - a name that several rules of the domain have is advertised by each of them as `<rule id>/<name>`
 *   (`api-per-user/per-second`), in every answer, whether or not the other rule is in it;
 * - should that still meet another policy's name (a limit literally named `api-per-user/per-second`), the later in
 *   configuration order (rules, then within a rule its limits, tiers and overrides) takes `~2`, `~3`, ….
 * Characters outside printable ASCII are percent-encoded (UTF-8) first, so every name is a valid sf-string. Shadow
 * rules are never advertised and take no part. A name the configuration does not know (a rule it was not computed
 * for) is advertised as is.
 *
 * Names are computed once per configuration ({@link registerPolicyNames}, which the engine calls when it compiles
 * one) and kept per rule object, so an answer given under an earlier configuration (an idempotent replay across a
 * reload) keeps that configuration's names. Loaders build fresh rule objects for each configuration; a rule object
 * shared by several configurations takes the names of the last one registered.
 */
import type { Override, Rule, SluiceConfig } from "./rule.js";

/** Per rule, its policies whose advertised name is not their printable name: limit name → advertised name. */
const renamed = new WeakMap<Rule, ReadonlyMap<string, string>>();

/** `s` with every character outside printable ASCII (0x20–0x7E) percent-encoded as UTF-8. */
export function printableName(s: string): string {
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) {
      plain = false;
      break;
    }
  }
  if (plain) return s;
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c >= 0x20 && c <= 0x7e) out += ch;
    else {
      // A lone surrogate has no UTF-8 form: Buffer encodes it as U+FFFD (EF BF BD).
      for (const b of Buffer.from(ch, "utf8")) out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    }
  }
  return out;
}

/** Whether override `o` can apply to `rule` (as `effective-limits.ts` picks them; blocked rules take none). */
function appliesTo(o: Override, rule: Rule): boolean {
  if (rule.blocked === true) return false;
  if (o.rule !== undefined) return o.rule === rule.id;
  return rule.identityKey !== undefined && o.identity.startsWith(`${rule.identityKey}:`);
}

/** The policy names `rule` can report, in configuration order (limits, tiers, overrides), each once. */
function namesOf(rule: Rule, overrides: readonly Override[]): string[] {
  if (rule.blocked === true) return [rule.name];
  const names = new Set<string>();
  for (const l of rule.limits) names.add(l.name);
  for (const tier of Object.values(rule.tiers))
    if (tier !== "unlimited") for (const l of tier) names.add(l.name);
  for (const o of overrides) {
    if (o.limits !== "unlimited" && appliesTo(o, rule)) for (const l of o.limits) names.add(l.name);
  }
  return [...names];
}

/**
 * Computes the advertised name of every policy of `config` (see the module comment) and records them on its rules,
 * for {@link advertisedPolicyName}; call once per configuration, before answering under it.
 */
export function registerPolicyNames(config: SluiceConfig): void {
  // Per domain: each advertised rule with its policy names (printable), in configuration order.
  const byDomain = new Map<string, { rule: Rule; names: string[] }[]>();
  for (const rule of config.rules) {
    renamed.delete(rule);
    if (rule.behaviour === "shadow") continue;
    let list = byDomain.get(rule.domain);
    if (list === undefined) {
      list = [];
      byDomain.set(rule.domain, list);
    }
    list.push({ rule, names: namesOf(rule, config.overrides) });
  }
  for (const list of byDomain.values()) {
    // How many rules of the domain have each printable name.
    const rulesWith = new Map<string, number>();
    for (const { names } of list) {
      for (const n of new Set(names.map(printableName))) rulesWith.set(n, (rulesWith.get(n) ?? 0) + 1);
    }
    const taken = new Set<string>();
    for (const { rule, names } of list) {
      let changed: Map<string, string> | undefined;
      for (const name of names) {
        const printable = printableName(name);
        const base =
          (rulesWith.get(printable) as number) > 1 ? `${printableName(rule.id)}/${printable}` : printable;
        let advertised = base;
        for (let n = 2; taken.has(advertised); n++) advertised = `${base}~${n}`;
        taken.add(advertised);
        if (advertised !== name) {
          changed ??= new Map();
          changed.set(name, advertised);
        }
      }
      if (changed !== undefined) renamed.set(rule, changed);
    }
  }
}

/**
 * The name policy `name` of `rule` is advertised under: the one {@link registerPolicyNames} gave it, else `name`
 * made printable.
 */
export function advertisedPolicyName(rule: Rule, name: string): string {
  const names = renamed.get(rule);
  const advertised = names === undefined ? undefined : names.get(name);
  return advertised ?? printableName(name);
}
