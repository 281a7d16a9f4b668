-- bucketed-window.lua: the Lua twin of src/algorithms/bucketed-window.ts (seed 001's queue of fixed-width time
-- buckets). Same inputs, same outputs, same arithmetic, line for line, including the ring layout; read that
-- file's header for the model and the edges.
--
-- A fragment: the loader pastes it into apply.lua as the body of `kernel(7)`, where TIME_TOLERANCE_MS, ceil_ms,
-- floor_count, floor and INF are in scope.
--
-- State (3 + 2N fields, N = P / w): s[0] = head (ring index of the oldest bucket), s[1] = size (live buckets),
-- s[2] = total (sum of their counts), bucket i at s[3 + 2i] = bucketId and s[4 + 2i] = count. Stored by
-- apply.lua as one Redis string: a flags byte (7 * 2 + warning bit), then the fields as little-endian doubles,
-- field i at byte offset 1 + 8i; bytes past the end read as 0. Decoded lazily, written back field by field.
-- A newest bucket id ahead of floor(now / w) is a clock gone back (no time passes) when at most N ahead; more
-- than N ahead it is an id of another, narrower bucket width (a lengthened period or bucket under the same
-- name) and the queue reads as empty (idle 0). A changed N re-lays the ring as the TS `resize` (ring.ts's
-- ringResize) does: apply.lua's `load` does it for every kernel flagged `queue`.
--
-- Spec fields used: spec.limit, spec.period, spec.bucket (w).
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
local function apply(s, now, spec, cost, commit)
  local limit = spec.limit
  local w = spec.bucket
  local p = spec.period
  local cap = p / w
  local r = RING
  local head = s[HEAD]
  local size = s[SIZE]
  local total = s[TOTAL]
  if not (head >= 0 and head < cap) then head = 0 end -- not a head of this ring (load hands over one that is)
  if not (size > 0) then size = 0 elseif size > cap then size = cap end
  local tail = r + 2 * ((head + size - 1) % cap)
  local newest_id = 0
  if size > 0 then newest_id = s[tail] end
  local cur = floor((now + TIME_TOLERANCE_MS) / w)
  if size > 0 and newest_id > cur then
    if newest_id > cur + cap then
      size = 0 -- ids of another bucket width: an empty queue
    else
      cur = newest_id -- clock backwards: no time passed
    end
  end
  local cutoff = cur - cap

  while size > 0 do
    local at = r + 2 * head
    if s[at] > cutoff then break end
    total = total - s[at + 1]
    if head + 1 == cap then head = 0 else head = head + 1 end
    size = size - 1
  end
  if size == 0 or total < 0 then total = 0 end

  if cost > limit then
    local reset = 0
    if size > 0 then reset = ceil_ms(newest_id * w + p - now) end
    return false, floor_count(limit - total), reset, INF, 0
  end
  local same_bucket = size > 0 and newest_id == cur
  if total + cost <= limit and (cost == 0 or same_bucket or size < cap) then
    if cost == 0 then
      local reset = 0
      if size > 0 then reset = ceil_ms(newest_id * w + p - now) end
      return true, floor_count(limit - total), reset, 0, 0
    end
    if commit then
      if same_bucket then
        s[tail + 1] = s[tail + 1] + cost
      else
        local at = r + 2 * ((head + size) % cap)
        s[at] = cur
        s[at + 1] = cost
        size = size + 1
      end
      s[HEAD] = head
      s[SIZE] = size
      s[TOTAL] = total + cost
    end
    return true, floor_count(limit - total - cost), ceil_ms(cur * w + p - now), 0, 0
  end

  local retry = ceil_ms(newest_id * w + p - now) -- every bucket gone (reached only if the state lost buckets)
  local freed = 0
  local i = head
  for _ = 1, size do
    local at = r + 2 * i
    freed = freed + s[at + 1]
    if total - freed + cost <= limit then
      retry = ceil_ms(s[at] * w + p - now)
      break
    end
    if i + 1 == cap then i = 0 else i = i + 1 end
  end
  return false, floor_count(limit - total), ceil_ms(newest_id * w + p - now), retry, 0
end

-- refund(s, now, spec, amount): takes counts back from the newest buckets.
local function refund(s, _, spec, amount)
  if not (amount > 0) then return end
  local cap = spec.period / spec.bucket
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

-- idle(s, now, spec) -> newestId * w + P - now (0 when empty, or read as empty: newest id more than N ahead).
local function idle(s, now, spec)
  local cap = spec.period / spec.bucket
  local head = s[HEAD]
  local size = s[SIZE]
  if not (size > 0) then return 0 end
  if not (head >= 0 and head < cap) then head = 0 end
  if size > cap then size = cap end
  local newest_id = s[RING + 2 * ((head + size - 1) % cap)]
  if newest_id > floor((now + TIME_TOLERANCE_MS) / spec.bucket) + cap then return 0 end -- as in apply
  local ahead = newest_id * spec.bucket + spec.period - now
  if ahead > 0 then return ahead end
  return 0
end

local function width(spec)
  return RING + 2 * (spec.period / spec.bucket)
end

-- ring: decoded lazily; queue: ring.ts's layout, re-laid by apply.lua's `load` when its capacity changes.
return { apply = apply, refund = refund, idle = idle, width = width, ring = true, queue = true }
