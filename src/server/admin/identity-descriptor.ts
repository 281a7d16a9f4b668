/**
 * The descriptor a request of one identity would carry under one rule, built from the rule's match entries:
 * the identity's value at the rule's identity entry, and the pattern's own value at every `exact` entry. When
 * another entry is matched by a non-exact pattern (any value, a prefix, a glob, a path), the identity alone
 * does not say which counter a request uses (one per value, or a shared one reached by many values), so there
 * is no single descriptor and the answer says why. The admin API uses it to peek an identity's usage (a check
 * of cost 0) and to reset an identity's counters.
 */
import type { Descriptor, DescriptorEntry, Rule, ValuePattern } from "../../rules/rule.js";

/** A descriptor for the identity under the rule, or why there is none. */
export type IdentityDescriptor =
  | { readonly ok: true; readonly descriptor: Descriptor }
  | { readonly ok: false; readonly reason: string };

/** Splits `key:value` at the first `:`. */
export function splitIdentity(identity: string): { key: string; value: string } {
  const at = identity.indexOf(":");
  return { key: identity.slice(0, at), value: identity.slice(at + 1) };
}

function describePattern(p: ValuePattern): string {
  switch (p.kind) {
    case "any":
      return "any value";
    case "exact":
      return `the value ${JSON.stringify(p.value)}`;
    case "prefix":
      return `the prefix ${JSON.stringify(p.prefix)}`;
    case "glob":
      return `the glob ${JSON.stringify(p.pattern)}`;
    case "path":
      return `the path pattern ${JSON.stringify(p.pattern)}`;
  }
}

/** The descriptor of `identity` (`key:value`) under `rule`; see the module comment. */
export function identityDescriptor(rule: Rule, identity: string): IdentityDescriptor {
  const { key, value } = splitIdentity(identity);
  if (rule.identityKey !== key) {
    return {
      ok: false,
      reason:
        rule.identityKey === undefined
          ? `rule ${JSON.stringify(rule.id)} has no identity entry`
          : `rule ${JSON.stringify(rule.id)} identifies callers by ${JSON.stringify(rule.identityKey)}, not ${JSON.stringify(key)}`,
    };
  }
  const entries: DescriptorEntry[] = [];
  let placed = false;
  for (const m of rule.match) {
    if (!placed && m.key === key) {
      entries.push({ key, value });
      placed = true;
    } else if (m.value.kind === "exact") {
      entries.push({ key: m.key, value: m.value.value });
    } else {
      return {
        ok: false,
        reason: `the rule also matches the "${m.key}" entry by ${describePattern(m.value)}, so the counter depends on each request's ${m.key}, not on the identity alone`,
      };
    }
  }
  return { ok: true, descriptor: entries };
}
