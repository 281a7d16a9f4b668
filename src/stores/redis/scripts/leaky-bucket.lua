-- leaky-bucket.lua: the Lua twin of src/algorithms/leaky-bucket.ts (policing meter). Like the TS step, it is the
-- drain kernel (drain.lua, pasted just before this file by the loader) with the level read as water in the bucket.
--
-- State (2 fields): s[0] = level, s[1] = lastMs. Stored as '<Bdd' (see drain.lua). Algorithm code 3.
--
-- KEYS / ARGV: none of its own; apply.lua parses them (its header documents both line by line) and calls the
-- drain kernel's apply / refund / idle, documented in drain.lua.
return { apply = drain_apply, refund = drain_refund, idle = drain_idle, width = 2 }
