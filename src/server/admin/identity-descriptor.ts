/**
 * The descriptor a request of one identity would carry under one rule, built from the rule's match entries:
 * the identity's value at the rule's identity entry, and the pattern's own value at every `exact` entry. When
 * another entry is matched by a non-exact pattern (any value, a prefix, a glob, a path), the identity alone
 * does not say which counter a request uses (one per value, or a shared one reached by many values), so there
 * is no single descriptor and the answer says why. The identity's value must itself match the identity entry's
 * pattern (`user:7` is not under a rule for the prefix `beta-`): otherwise the descriptor would be counted by
 * some other rule, and the answer says so instead. When the identity entry itself is `shared` (a non-exact pattern
 * whose matching values all count one counter, such as `{ key: remote_address, prefix: "10.", shared: true }`),
 * the counter is not the identity's own but every matching value's: there is no descriptor of the identity alone
 * either, and the answer says why (a reset would wipe the others' counts, a usage peek would show their use as
 * the identity's). The admin API uses it to peek an identity's usage (a check
 * of cost 0) and to reset an identity's counters.
 *
 * A rule **reaches** an identity `key:value` when it identifies callers by `key`, or when it has no identity
 * entry but names this very identity with an exact pattern (`match: [{ key: user, value: "42" }]` reaches
 * `user:42`). Even then the engine counts the descriptor under the most specific rule matching it, which may be
 * another one: {@link notCountedReason} says so, in the same words for every route.
 */
import { compileRules } from "../../rules/matcher.js";
import type { Descriptor, DescriptorEntry, EntryMatcher, Rule, ValuePattern } from "../../rules/rule.js";

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

/** Whether `rule` reaches `identity` (`key:value`); see the module comment. */
export function reachesIdentity(rule: Rule, identity: string): boolean {
  const { key, value } = splitIdentity(identity);
  if (rule.identityKey !== undefined) return rule.identityKey === key;
  return rule.match.some((m) => m.key === key && m.value.kind === "exact" && m.value.value === value);
}

/** The descriptor of `identity` (`key:value`) under `rule`; see the module comment. */
export function identityDescriptor(rule: Rule, identity: string): IdentityDescriptor {
  const { key, value } = splitIdentity(identity);
  if (rule.identityKey !== key && (rule.identityKey !== undefined || !reachesIdentity(rule, identity))) {
    return {
      ok: false,
      reason:
        rule.identityKey === undefined
          ? `rule ${JSON.stringify(rule.id)} has no identity entry`
          : `rule ${JSON.stringify(rule.id)} identifies callers by ${JSON.stringify(rule.identityKey)}, not ${JSON.stringify(key)}`,
    };
  }
  const entries: DescriptorEntry[] = [];
  let placed: EntryMatcher | undefined;
  for (const m of rule.match) {
    if (placed === undefined && m.key === key) {
      entries.push({ key, value });
      placed = m;
    } else if (m.value.kind === "exact") {
      entries.push({ key: m.key, value: m.value.value });
    } else {
      return {
        ok: false,
        reason: `the rule also matches the "${m.key}" entry by ${describePattern(m.value)}, so the counter depends on each request's ${m.key}, not on the identity alone`,
      };
    }
  }
  // Every other entry is exact and copied from the rule: the rule matches iff the identity's value matches its
  // pattern. The matcher decides (prefix, glob, path semantics are its own), on this one rule.
  if (placed !== undefined && compileRules([rule]).match(rule.domain, entries) === undefined) {
    return {
      ok: false,
      reason: `${identity} does not match the rule's "${key}" entry (${describePattern(placed.value)})`,
    };
  }
  // A shared identity entry (the matcher shares only non-exact patterns): one counter for every matching value.
  if (placed?.shared && placed.value.kind !== "exact") {
    return {
      ok: false,
      reason: `the rule's "${key}" entry (${describePattern(placed.value)}) is shared: every matching ${key} counts one counter, not ${identity} alone`,
    };
  }
  return { ok: true, descriptor: entries };
}

/**
 * Why `identity`'s descriptor under `rule` is not counted by `rule`, given the rule the engine matched it to
 * (`matched`, undefined when none: the configuration changed in between); undefined when `rule` counts it.
 */
export function notCountedReason(
  rule: Rule,
  identity: string,
  matched: Rule | undefined,
): string | undefined {
  if (matched === undefined) {
    return `${identity} does not match the rule's ${splitIdentity(identity).key} pattern`;
  }
  if (matched.id !== rule.id) {
    return `requests of ${identity} with this descriptor are counted by the more specific rule ${JSON.stringify(matched.id)}`;
  }
  return undefined;
}
