/**
 * envoyproxy/ratelimit's matching, for the domains of its configuration files: a greedy walk down the domain's
 * descriptor tree. For a descriptor of N entries, starting at the root's children, each entry in turn picks one
 * child among those with its key: the child with exactly its value (`key_value`), else the first child, in the
 * file's order, whose wildcard value (`*` anywhere) matches it, else the child without a value (bare `key`). The
 * walk never comes back up: when an entry finds no child, or the node it reached at entry N has no `rate_limit`,
 * the descriptor has no limit — even when a less specific branch would have matched all N entries. A node without
 * a `rate_limit` therefore exempts what reaches it, which configurations use to let chosen values through
 * (`key: client, value: internal` beside a limited bare `key: client`). A descriptor deeper than the tree, or one
 * whose walk ends above entry N, has no limit either.
 *
 * This differs from Sluice's own matching (matcher.ts), which takes the most specific *complete* match and so
 * backtracks out of dead ends; a native configuration keeps that. The walk costs one `Map` lookup per entry, plus a
 * scan of that key's wildcard children when the exact lookup misses.
 */
import { globMatches } from "./glob-match.js";
import type { Descriptor, DescriptorTree } from "./rule.js";

/** The children of one node that have one key. */
interface KeyChildren {
  /** By exact value (`key_value`). */
  readonly exact: Map<string, TreeNode>;
  /** Wildcard values in the file's order, each split at its `*`s. */
  readonly globs: { readonly parts: readonly string[]; readonly node: TreeNode }[];
  /** The child without a value (bare `key`). */
  any: TreeNode | undefined;
}

/** A node of the tree: the rule its `rate_limit` became (its index), and its children by key. */
interface TreeNode {
  /** Position of its rule in the rules given to {@link compileDescriptorTree}; -1 without a `rate_limit`. */
  index: number;
  readonly children: Map<string, KeyChildren>;
}

function newNode(): TreeNode {
  return { index: -1, children: new Map() };
}

/**
 * The greedy walk of `tree`: the position of the rule a descriptor reaches (in the array `indexOf` numbers rules
 * by, via their ids), or -1 when it reaches none. Throws when a node names a rule id `indexOf` does not know.
 */
export function compileDescriptorTree(
  tree: DescriptorTree,
  indexOf: ReadonlyMap<string, number>,
): (descriptor: Descriptor) => number {
  const root = newNode();
  for (const n of tree.nodes) {
    let node = root;
    for (const m of n.match) {
      let kc = node.children.get(m.key);
      if (kc === undefined) {
        kc = { exact: new Map(), globs: [], any: undefined };
        node.children.set(m.key, kc);
      }
      const v = m.value;
      let next: TreeNode | undefined;
      if (v.kind === "exact") {
        next = kc.exact.get(v.value);
        if (next === undefined) {
          next = newNode();
          kc.exact.set(v.value, next);
        }
      } else if (v.kind === "glob") {
        next = kc.globs.find((g) => g.parts.join("*") === v.pattern)?.node;
        if (next === undefined) {
          next = newNode();
          kc.globs.push({ parts: v.pattern.split("*"), node: next });
        }
      } else if (v.kind === "any") {
        kc.any ??= newNode();
        next = kc.any;
      } else {
        throw new Error(`descriptor tree of ${tree.domain}: a ${v.kind} value has no place in it`);
      }
      node = next;
    }
    if (n.rule !== undefined) {
      const index = indexOf.get(n.rule);
      if (index === undefined) throw new Error(`descriptor tree of ${tree.domain}: no rule ${n.rule}`);
      node.index = index;
    }
  }
  return (descriptor) => {
    let node = root;
    const n = descriptor.length;
    for (let i = 0; i < n; i++) {
      const e = descriptor[i];
      const kc = node.children.get(e.key);
      if (kc === undefined) return -1;
      let next = kc.exact.get(e.value);
      if (next === undefined) {
        for (const g of kc.globs) {
          if (globMatches(g.parts, e.value)) {
            next = g.node;
            break;
          }
        }
      }
      next ??= kc.any;
      if (next === undefined) return -1;
      node = next;
    }
    return n === 0 ? -1 : node.index;
  };
}
