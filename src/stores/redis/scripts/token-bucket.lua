-- token-bucket.lua: the Lua twin of src/algorithms/token-bucket.ts. Like the TS step, it is the drain kernel
-- (drain.lua, pasted just before this file by the loader) with the level read as tokens used: tokens = B - level.
--
-- State (2 fields): s[0] = usedTokens (B - tokens), s[1] = lastMs. Stored as '<Bdd' (see drain.lua).
-- Algorithm code 2.
--
-- KEYS / ARGV: none of its own; apply.lua parses them (its header documents both line by line) and calls the
-- drain kernel's apply / refund / idle, documented in drain.lua.
return { apply = drain_apply, refund = drain_refund, idle = drain_idle, width = 2 }
