-- once.lua: the claim on an idempotency record for a consume that one apply.lua call cannot cover (its items live
-- on several Redis nodes: Cluster masters, or shards of src/stores/sharded-store.ts). Run on the node of the
-- record key, one action per call, each atomic (src/stores/once-claim.ts has the protocol):
--   claim    a record present is returned (a replay); another caller's unexpired claim answers 2 (pending);
--            else this caller's claim is set for a short TTL and the answer is 0 (claimed);
--   record   the decisions, replacing this caller's claim (or an expired one), for the record's TTL;
--   drop     this caller's claim is deleted (its consume failed: a retry may proceed at once).
-- A record and a claim never both hold the key: a claim is `~` then the claimer's token, a record is
-- `<atMs>;<statuses>` exactly as apply.lua writes it (op 6 answers "pending" on a claim).
--
-- KEYS[1]  the record key, `<prefix>:{<identity of the call's first item>}:idem:<record>`
-- ARGV[1]  the action: "c" claim, "r" record, "d" drop
-- ARGV[2]  this caller's claim value: `~` then a random token, unique per claim
-- ARGV[3]  claim: the claim's TTL; record: the record's TTL (whole ms >= 1, decimal)
-- ARGV[4]  record only: the record value, `<atMs>;<statuses>`
--
-- Reply: claim: 0 (claimed), 2 (pending), or the record value (a string); record and drop: 1 when done, 0 when
-- the key holds another caller's claim or a record (left untouched).

local key, action, mine = KEYS[1], ARGV[1], ARGV[2]
local v = redis.call("GET", key) -- false when missing or expired
if action == "c" then
  if not v then
    redis.call("PSETEX", key, ARGV[3], mine)
    return 0
  end
  if string.byte(v, 1) == 126 then return 2 end -- `~`: a claim, not expired (Redis dropped it otherwise)
  return v
end
if v and v ~= mine then return 0 end
if action == "r" then
  redis.call("PSETEX", key, ARGV[3], ARGV[4])
elseif v then
  redis.call("DEL", key)
end
return 1
