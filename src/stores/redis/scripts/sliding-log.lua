-- sliding-log.lua: the Lua twin of src/algorithms/sliding-log.ts (the exact sliding window over a ring of
-- admitted (timestamp, cost) entries). Same inputs, same outputs, same arithmetic, line for line, including the
-- ring layout, so a changed limit re-lays the ring exactly as the TS `resize` (ring.ts's ringResize) does: apply.lua's
-- `load` does it for every kernel flagged `queue`. Read that file's header for the model and the edges.
--
-- A fragment: the loader pastes it into apply.lua as the body of `kernel(6)`, where TIME_TOLERANCE_MS, ceil_ms,
-- floor_count and INF are in scope.
--
-- State (3 + 2L fields, indices as in the TS Float64Array): s[0] = head (ring index of the oldest entry),
-- s[1] = size (live entries), s[2] = total (sum of their costs), entry i at s[3 + 2i] = tsMs and
-- s[4 + 2i] = cost. Stored by apply.lua as one Redis string: a flags byte (6 * 2 + warning bit) followed by the
-- fields as little-endian doubles, field i at byte offset 1 + 8i; bytes past the end of the string read as 0.
-- apply.lua decodes fields lazily (only those the step touches) and writes back only the fields that changed.
--
-- Spec fields used: spec.limit (the ring capacity), spec.period.
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

local HEAD, SIZE, TOTAL, RING = 0, 1, 2, 3

-- apply(s, now, spec, cost, commit) -> allowed, remaining, resetAfterMs, retryAfterMs, leaseId
local function apply(s, now_ms, spec, cost, commit)
  local limit = spec.limit
  local cap = limit
  local p = spec.period
  local r = RING
  local head = s[HEAD]
  local size = s[SIZE]
  local total = s[TOTAL]
  if not (head >= 0 and head < cap) then head = 0 end -- not a head of this ring (load hands over one that is)
  if not (size > 0) then size = 0 elseif size > cap then size = cap end
  local newest = 0
  if size > 0 then newest = s[r + 2 * ((head + size - 1) % cap)] end
  local now = now_ms
  if size > 0 and newest > now_ms then now = newest end -- clock backwards: no time passed

  while size > 0 do
    local at = r + 2 * head
    if s[at] + p - now > TIME_TOLERANCE_MS then break end
    total = total - s[at + 1]
    if head + 1 == cap then head = 0 else head = head + 1 end
    size = size - 1
  end
  if size == 0 or total < 0 then total = 0 end

  if cost > limit then
    local reset = 0
    if size > 0 then reset = ceil_ms(newest + p - now_ms) end
    return false, floor_count(limit - total), reset, INF, 0
  end
  if total + cost <= limit and (cost == 0 or size < cap) then
    if cost == 0 then
      local reset = 0
      if size > 0 then reset = ceil_ms(newest + p - now_ms) end
      return true, floor_count(limit - total), reset, 0, 0
    end
    if commit then
      local tail = r + 2 * ((head + size) % cap)
      s[tail] = now
      s[tail + 1] = cost
      s[HEAD] = head
      s[SIZE] = size + 1
      s[TOTAL] = total + cost
    end
    return true, floor_count(limit - total - cost), ceil_ms(now + p - now_ms), 0, 0
  end

  local retry = ceil_ms(newest + p - now_ms) -- every entry gone (reached only if the state lost entries)
  local freed = 0
  local i = head
  for _ = 1, size do
    local at = r + 2 * i
    freed = freed + s[at + 1]
    if total - freed + cost <= limit then
      retry = ceil_ms(s[at] + p - now_ms)
      break
    end
    if i + 1 == cap then i = 0 else i = i + 1 end
  end
  return false, floor_count(limit - total), ceil_ms(newest + p - now_ms), retry, 0
end

-- refund(s, now, spec, amount): takes cost back from the newest entries.
local function refund(s, _, spec, amount)
  if not (amount > 0) then return end
  local cap = spec.limit
  local r = RING
  local head = s[HEAD]
  local size = s[SIZE]
  local total = s[TOTAL]
  if not (head >= 0 and head < cap) then head = 0 end
  if not (size > 0) then size = 0 elseif size > cap then size = cap end
  local left = amount
  while left > 0 and size > 0 do
    local at = r + 2 * ((head + size - 1) % cap)
    local c = s[at + 1]
    if c <= left then
      left = left - c
      total = total - c
      s[at] = 0
      s[at + 1] = 0
      size = size - 1
    else
      s[at + 1] = c - left
      total = total - left
      left = 0
    end
  end
  if size == 0 then head = 0 end
  s[HEAD] = head
  s[SIZE] = size
  if size == 0 or total < 0 then s[TOTAL] = 0 else s[TOTAL] = total end
end

-- idle(s, now, spec) -> newest ts + P - now (0 when empty).
local function idle(s, now, spec)
  local cap = spec.limit
  local head = s[HEAD]
  local size = s[SIZE]
  if not (size > 0) then return 0 end
  if not (head >= 0 and head < cap) then head = 0 end
  if size > cap then size = cap end
  local ahead = s[RING + 2 * ((head + size - 1) % cap)] + spec.period - now
  if ahead > 0 then return ahead end
  return 0
end

local function width(spec)
  return RING + 2 * spec.limit
end

-- ring: decoded lazily; queue: ring.ts's layout, re-laid by apply.lua's `load` when its capacity changes.
return { apply = apply, refund = refund, idle = idle, width = width, ring = true, queue = true }
