-- sliding-window.lua: the Lua twin of src/algorithms/sliding-window.ts (the weighted two-window counter).
-- Same inputs, same outputs, same arithmetic, line for line; read that file's header for the model, the
-- tolerance, the exact retry time and the edges.
--
-- A fragment: the loader pastes it into apply.lua as the body of `kernel(5)`, where TIME_TOLERANCE_MS,
-- ceil_ms, floor_count, floor and INF are in scope.
--
-- State (3 fields): s[0] = prevCount, s[1] = currCount, s[2] = windowId (the window of currCount). Stored by
-- apply.lua as one Redis string of 25 bytes: flags byte (5 * 2 + warning bit), three little-endian doubles.
-- With w the window of now: windowId = w + 1 is a clock gone back across one window edge (the stored window
-- stays in effect, f = 0); windowId > w + 1 is an id of another, shorter period (a lengthened period under the
-- same name) and rolls to (0, 0) at w, a fresh state (idle 0), as a gap of two windows or more does.
--
-- Spec fields used: spec.limit, spec.period.
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

-- Rolls the stored counts to the window of now, clamped to limit -> prev, curr, win, f.
local function roll(s, now, p, limit)
  local stored = s[2]
  local w = floor((now + TIME_TOLERANCE_MS) / p)
  local prev = 0
  local curr = 0
  local f = 0
  local win = w
  if w <= stored and stored <= w + 1 then
    prev = s[0]
    curr = s[1]
    win = stored
    if w == stored then f = (now - w * p) / p end -- else: clock went backwards, stay at the window's start
  else
    if w == stored + 1 then prev = s[1] end -- else: a long gap, or an id of another period (> w + 1): fresh
    f = (now - w * p) / p
  end
  if prev > limit then prev = limit end -- limit lowered since last touch: clamp, never reset
  if curr > limit then curr = limit end
  if not (f > 0) then f = 0 end -- a time just before the window (within the tolerance) sits at its start
  return prev, curr, win, f
end

-- Milliseconds until the counts (rolled to window win) no longer affect any estimate.
local function until_fresh(prev, curr, win, now, p)
  if curr > 0 then return (win + 2) * p - now end
  if prev > 0 then return (win + 1) * p - now end
  return 0
end

-- apply(s, now, spec, cost, commit) -> allowed, remaining, resetAfterMs, retryAfterMs, leaseId
local function apply(s, now, spec, cost, commit)
  local limit = spec.limit
  local p = spec.period
  local prev, curr, win, f = roll(s, now, p, limit)
  local weighted = prev * (1 - f)
  local estimate = weighted + curr
  local allowed, retry
  if cost > limit then
    allowed = false
    retry = INF
  else
    local slide = (prev * TIME_TOLERANCE_MS) / p
    local slack = weighted
    if slide < weighted then slack = slide end
    slack = slack + 1e-9
    if estimate + cost - limit <= slack then
      allowed = true
      retry = 0
      estimate = estimate + cost
      curr = curr + cost
      if commit and cost > 0 then
        s[0] = prev
        s[1] = curr
        s[2] = win
      end
    else
      allowed = false
      local room = limit - curr - cost
      -- Within this window once prev * (1 - f') <= room; otherwise next window, once curr * (1 - f') <= L - c.
      local at
      if room >= 0 then
        at = (win + 1) * p - (room * p) / prev
      else
        at = (win + 2) * p - ((limit - cost) * p) / curr
      end
      retry = ceil_ms(at - now)
    end
  end
  return allowed, floor_count(limit - estimate), ceil_ms(until_fresh(prev, curr, win, now, p)), retry, 0
end

-- refund(s, now, spec, amount): takes units back from the current window's count only.
local function refund(s, now, spec, amount)
  local prev, curr, win = roll(s, now, spec.period, spec.limit)
  curr = curr - amount
  s[0] = prev
  if curr > 0 then s[1] = curr else s[1] = 0 end
  s[2] = win
end

-- idle(s, now, spec) -> milliseconds until the counts no longer affect any estimate.
local function idle(s, now, spec)
  local prev, curr, win = roll(s, now, spec.period, spec.limit)
  return until_fresh(prev, curr, win, now, spec.period)
end

return { apply = apply, refund = refund, idle = idle, width = 3 }
