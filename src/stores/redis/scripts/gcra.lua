-- gcra.lua: the Lua twin of src/algorithms/gcra.ts (GCRA, virtual scheduling form). Same inputs, same
-- outputs, same arithmetic, line for line; read that file's header for the model, the reported values and the
-- edges (clock backwards, cost 0, cost > burst, a lowered burst keeps the debt).
--
-- This file is a fragment, not a standalone script: the loader (src/stores/redis/script.ts) pastes it into
-- apply.lua as the body of `kernel(1)`, where the helpers it uses are in scope: TIME_TOLERANCE_MS, UNIT_TOLERANCE,
-- floor, ceil, INF. It runs no Redis command; apply.lua loads and stores the state.
--
-- State (1 field, index 0 as in the TS Float64Array): s[0] = TAT, epoch ms; 0 (or any time <= now) is full.
-- Stored by apply.lua as one Redis string of 9 bytes: a flags byte (algorithm code 1 * 2 + warning bit), then
-- the TAT as a little-endian IEEE-754 double (struct.pack '<Bd'), so it round-trips exactly without
-- formatting.
--
-- Spec fields used: spec.burst, spec.t (emission interval T = periodMs / limit, computed as in LimitSpec).
--
-- apply.lua's fast path (one gcra limit, consumes only) runs `apply` and `idle` written out inline: a change
-- here must be made there too (the differential test checks both against src/algorithms/gcra.ts).
--
-- KEYS / ARGV: none of its own; apply.lua parses them (its header documents both line by line) and calls:
--   apply(s, now, spec, cost, commit) -> allowed, remaining, resetAfterMs, retryAfterMs, leaseId
--     s        the state fields, indexed as the TS Float64Array (s[0] ...); written only when allowed and commit
--     now      epoch ms of the decision (the client's, or the server's TIME)
--     spec     { limit, period, burst, bucket, t = period / limit } (ARGV numbers of this limit)
--     cost     units asked for (0: report only)
--     commit   whether an allowed step writes its next state
--   refund(s, now, spec, amount)      gives back up to amount units (apply.lua calls it on stored, non-idle states only)
--   idle(s, now, spec) -> ms          time until the state is indistinguishable from fresh (sets the key's TTL)

-- Reports remaining = floor((tau - ahead + tol) / T) and resetAfterMs = ceil(ahead - 0.9 tol), 0 at most.
local function report(ahead, tau, t, tol)
  local free = tau - ahead + tol
  local remaining = 0
  if free >= t then remaining = floor(free / t) end
  local reset = 0
  if ahead - 0.9 * tol > 0 then reset = ceil(ahead - 0.9 * tol) end
  return remaining, reset
end

-- apply(s, now, spec, cost, commit) -> allowed, remaining, resetAfterMs, retryAfterMs, leaseId
-- Decides on how far ahead of schedule the key is (was, after: small numbers), as gcra.ts does, with T rounded up
-- to the epoch's grid at now (now + T as a double not below the exact sum, minus now) and tau = burst * T; the new
-- TAT is rounded up (one ulp, x + x * 1.2e-16) when now + after cannot hold it exactly.
local function apply(s, now, spec, cost, commit)
  local t = now + spec.t
  if t - now < spec.t then t = t + t * 1.2e-16 end
  t = t - now
  local tau = spec.burst * t
  local tol = TIME_TOLERANCE_MS -- rateToleranceMs of time-math.ts: min(1e-3, 1e-3 * T)
  if t < 1 then tol = UNIT_TOLERANCE * t end
  local tat = s[0]
  local was = 0
  if tat > now then was = tat - now end
  if cost > spec.burst then
    local remaining, reset = report(was, tau, t, tol)
    return false, remaining, reset, INF, 0
  end
  local after = was + cost * t
  local excess = after - tau
  if excess <= tol then
    local nxt = now + after
    if nxt - now < after then nxt = nxt + nxt * 1.2e-16 end
    if commit then s[0] = nxt end
    local remaining, reset = report(nxt - now, tau, t, tol)
    return true, remaining, reset, 0, 0
  end
  local remaining, reset = report(was, tau, t, tol)
  return false, remaining, reset, ceil(excess - 0.9 * tol), 0
end

-- refund(s, now, spec, amount): moves the TAT back by amount * T (rounded up to the grid, as apply), to 0 once it
-- reaches now.
local function refund(s, now, spec, amount)
  local tat = s[0]
  if tat <= now then return end
  local t = now + spec.t
  if t - now < spec.t then t = t + t * 1.2e-16 end
  local back = tat - amount * (t - now)
  if back > now then s[0] = back else s[0] = 0 end
end

-- idle(s, now, spec) -> milliseconds until the state is indistinguishable from fresh.
local function idle(s, now)
  local ahead = s[0] - now
  if ahead > 0 then return ahead end
  return 0
end

return { apply = apply, refund = refund, idle = idle, width = 1 }
