-- fixed-window.lua: the Lua twin of src/algorithms/fixed-window.ts (a counter per epoch-aligned window of P).
-- Same inputs, same outputs, same arithmetic, line for line; read that file's header for the model and edges.
--
-- A fragment: the loader pastes it into apply.lua as the body of `kernel(4)`, where TIME_TOLERANCE_MS, ceil_ms,
-- floor and INF are in scope.
--
-- State (2 fields): s[0] = count, s[1] = windowId (floor(now / P) of the window the count belongs to). Stored
-- by apply.lua as one Redis string of 17 bytes: flags byte (4 * 2 + warning bit), two little-endian doubles.
-- With w the window of now: windowId < w is a past window (count 0); windowId = w + 1 is a clock gone back
-- across one window edge (the stored window stays in effect); windowId > w + 1 is an id of another, shorter
-- period (a lengthened period under the same name) and reads as fresh (count 0, window w; idle 0).
--
-- Spec fields used: spec.limit, spec.period.
--
-- apply.lua's fast path (one fixed_window limit, consumes only) runs `apply` and `idle` written out inline: a
-- change here must be made there too (the differential test checks both against fixed-window.ts).
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

-- The window now falls in; a time within TIME_TOLERANCE_MS of the next window counts as in it.
local function window_of(now, period)
  return floor((now + TIME_TOLERANCE_MS) / period)
end

-- apply(s, now, spec, cost, commit) -> allowed, remaining, resetAfterMs, retryAfterMs, leaseId
local function apply(s, now, spec, cost, commit)
  local limit = spec.limit
  local stored = s[1]
  local w = window_of(now, spec.period)
  local count = 0
  local win = w
  if w <= stored and stored <= w + 1 then
    win = stored
    count = s[0]
    if count > limit then count = limit end -- limit lowered since last touch: clamp, never reset
  end
  local until_end = (win + 1) * spec.period - now
  local allowed, retry
  if cost > limit then
    allowed = false
    retry = INF
  elseif count + cost <= limit then
    allowed = true
    retry = 0
    count = count + cost
    if commit and cost > 0 then
      s[0] = count
      s[1] = win
    end
  else
    allowed = false
    retry = ceil_ms(until_end)
  end
  local reset = 0
  if count > 0 then reset = ceil_ms(until_end) end
  return allowed, limit - count, reset, retry, 0
end

-- refund(s, now, spec, amount): takes units back from the current window's count only.
local function refund(s, now, spec, amount)
  local stored = s[1]
  local w = window_of(now, spec.period)
  if w > stored or stored > w + 1 then
    s[0] = 0
    s[1] = w
    return
  end
  local count = s[0]
  if count > spec.limit then count = spec.limit end
  count = count - amount
  if count > 0 then s[0] = count else s[0] = 0 end
end

-- idle(s, now, spec) -> milliseconds until the window holding a count ends (0 when empty, over, or read as
-- fresh: more than one window ahead).
local function idle(s, now, spec)
  local stored = s[1]
  local w = window_of(now, spec.period)
  if s[0] <= 0 or w > stored or stored > w + 1 then return 0 end
  return (stored + 1) * spec.period - now
end

return { apply = apply, refund = refund, idle = idle, width = 2 }
