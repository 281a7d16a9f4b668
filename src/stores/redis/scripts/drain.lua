-- drain.lua: the Lua twin of src/algorithms/drain.ts, the kernel token_bucket and leaky_bucket share (one level
-- that drains at L / P units per ms and must stay at or below the burst B after adding a cost). Same inputs,
-- same outputs, same arithmetic, line for line; read drain.ts for the model, the tolerance and the edges.
--
-- A fragment: the loader pastes it, followed by token-bucket.lua or leaky-bucket.lua, into apply.lua as the
-- body of `kernel(2)` / `kernel(3)`, where TIME_TOLERANCE_MS, UNIT_TOLERANCE,
-- CEIL_SLACK_MS, ceil_ms, floor_count and INF are in scope.
--
-- State (2 fields, indices as in the TS Float64Array): s[0] = level (units), s[1] = lastMs (epoch ms of the
-- last write; never moved back). Stored by apply.lua as one Redis string of 17 bytes: a flags byte (algorithm
-- code * 2 + warning bit) and two little-endian doubles (struct.pack '<Bdd').
--
-- Spec fields used: spec.burst, spec.t (T = periodMs / limit).
--
-- apply.lua's fast path (one token_bucket or leaky_bucket limit, consumes only) runs `drain_apply` and
-- `drain_idle` written out inline: a change here must be made there too (the differential test checks both).
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

-- The level drained to now, not yet clamped (never negative).
local function drained_level(s, now, spec)
  local last = s[1]
  local elapsed = 0
  if now > last then elapsed = now - last end
  local level = s[0] - elapsed / spec.t
  if level > 0 then return level end
  return 0
end

-- Reports remaining = floor_count(B - level, tolUnits) and resetAfterMs = ceil_ms(lag + level * T).
local function report(level, lag, burst, t, tol_units)
  local reset = 0
  if level > 0 then reset = ceil_ms(lag + level * t) end
  return floor_count(burst - level, tol_units), reset
end

-- apply(s, now, spec, cost, commit) -> allowed, remaining, resetAfterMs, retryAfterMs, leaseId
local function drain_apply(s, now, spec, cost, commit)
  local t = spec.t
  local burst = spec.burst
  local tol = TIME_TOLERANCE_MS -- rateToleranceMs of time-math.ts: min(1e-3, 1e-3 * T)
  if t < 1 then tol = UNIT_TOLERANCE * t end
  local tol_units = tol / t
  local level = drained_level(s, now, spec) -- a burst lowered since last touch keeps the level (no clamp)
  local last = s[1]
  local lag = 0
  if last > now then lag = last - now end
  if cost > burst then
    local remaining, reset = report(level, lag, burst, t, tol_units)
    return false, remaining, reset, INF, 0
  end
  local after = level + cost
  local excess = (after - burst) * t
  if excess <= tol then
    local remaining, reset = report(after, lag, burst, t, tol_units)
    if commit and cost > 0 then
      s[0] = after
      if now > last then s[1] = now end
    end
    return true, remaining, reset, 0, 0
  end
  local remaining, reset = report(level, lag, burst, t, tol_units)
  local wait, retry = lag + excess, 1 -- a wait under CEIL_SLACK_MS (T < 0.1 ms) passes at the next whole ms
  if not (wait <= CEIL_SLACK_MS) then retry = ceil(wait - CEIL_SLACK_MS) end
  return false, remaining, reset, retry, 0
end

-- refund(s, now, spec, amount): level = max(0, level' - amount), last = max(last, now).
local function drain_refund(s, now, spec, amount)
  local level = drained_level(s, now, spec) - amount
  if level > 0 then s[0] = level else s[0] = 0 end
  if now > s[1] then s[1] = now end
end

-- idle(s, now, spec) -> the time until the stored level has fully drained.
local function drain_idle(s, now, spec)
  local level = s[0]
  if level <= 0 then return 0 end
  local ahead = level * spec.t - (now - s[1])
  if ahead > 0 then return ahead end
  return 0
end
