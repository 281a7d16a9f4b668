-- concurrency.lua: the Lua twin of src/algorithms/concurrency.ts (leases with expiry: L slots of (lease id,
-- expiry, cost), unordered, a removed lease replaced by the last one). Same inputs, same outputs, same
-- arithmetic, line for line, including the slot layout; read that file's header for the model and the edges.
--
-- A fragment: the loader pastes it into apply.lua as the body of `kernel(8)`, where TIME_TOLERANCE_MS, ceil_ms,
-- floor_count, floor and INF are in scope.
--
-- State (3 + 3L fields): s[0] = inflight (sum of the stored leases' costs), s[1] = nextLeaseId (the last id
-- handed out), s[2] = size (stored leases), lease i at s[3 + 3i] = leaseId, s[4 + 3i] = expiryMs,
-- s[5 + 3i] = cost. Stored by apply.lua as one Redis string: a flags byte (8 * 2 + warning bit), then the fields
-- as little-endian doubles, field i at byte offset 1 + 8i; bytes past the end read as 0. Decoded lazily,
-- written back field by field.
--
-- Spec fields used: spec.limit, spec.period (the lease lifetime).
--
-- KEYS / ARGV: none of its own; apply.lua parses them (its header documents both line by line) and calls:
--   apply(s, now, spec, cost, commit) -> allowed, remaining, resetAfterMs, retryAfterMs, leaseId
--     s        the state fields, indexed as the TS Float64Array (s[0] ...); written only when allowed and commit
--     now      epoch ms of the decision (the client's, or the server's TIME)
--     spec     { limit, period, burst, bucket, t = period / limit } (ARGV numbers of this limit)
--     cost     units asked for (0: report only)
--     commit   whether an allowed step writes its next state
--   release(s, now, spec, leaseId) -> held   ends a lease (refund is a no-op here, as in the TS step)
--   reset_keep(s) -> id       the last lease id, which a reset keeps (0: nothing to keep)
--   idle(s, now, spec) -> ms          time until the state is indistinguishable from fresh (sets the key's TTL)

local INFLIGHT, NEXT_ID, SIZE, LEASES, STRIDE = 0, 1, 2, 3, 3

-- Stored lease count, clamped to the slots the current limit provides.
local function stored_size(s, limit)
  local size = s[SIZE]
  if not (size > 0) then return 0 end
  if size > limit then return limit end
  return size
end

-- Moves lease `last` into slot `hole` and clears slot `last`.
local function move_last(s, base, hole, last)
  local from = base + STRIDE * last
  if hole ~= last then
    local to = base + STRIDE * hole
    s[to] = s[from]
    s[to + 1] = s[from + 1]
    s[to + 2] = s[from + 2]
  end
  s[from] = 0
  s[from + 1] = 0
  s[from + 2] = 0
end

-- apply(s, now, spec, cost, commit) -> allowed, remaining, resetAfterMs, retryAfterMs, leaseId
local function apply(s, now, spec, cost, commit)
  local limit = spec.limit
  local base = LEASES
  local size = stored_size(s, limit)
  local live = 0
  local live_count = 0
  local latest = now
  for i = 0, size - 1 do
    local at = base + STRIDE * i
    local expiry = s[at + 1]
    if expiry - now > TIME_TOLERANCE_MS then
      live = live + s[at + 2]
      live_count = live_count + 1
      if expiry > latest then latest = expiry end
    end
  end

  if cost > limit then
    return false, floor_count(limit - live), ceil_ms(latest - now), INF, 0
  end
  if live + cost <= limit and (cost == 0 or live_count < limit) then
    if cost == 0 then
      return true, floor_count(limit - live), ceil_ms(latest - now), 0, 0
    end
    local expiry = now + spec.period
    local reset_at = latest
    if expiry > latest then reset_at = expiry end
    local lease_id = 0
    if commit then
      local n = size
      local i = 0
      while i < n do
        local at = base + STRIDE * i
        if s[at + 1] - now > TIME_TOLERANCE_MS then
          i = i + 1
        else
          n = n - 1
          move_last(s, base, i, n)
        end
      end
      local seeded = floor(now) * 1000 -- ids seeded from the clock stay increasing after a key was dropped
      local id = s[NEXT_ID] + 1
      if seeded > id then id = seeded end
      local at = base + STRIDE * n
      s[at] = id
      s[at + 1] = expiry
      s[at + 2] = cost
      s[INFLIGHT] = live + cost
      s[NEXT_ID] = id
      s[SIZE] = n + 1
      lease_id = id
    end
    return true, floor_count(limit - live - cost), ceil_ms(reset_at - now), 0, lease_id
  end

  local retry = ceil_ms(latest - now) -- all expired (reached only if the state is inconsistent)
  local costs = {} -- the live leases as {expiry, cost}, sorted by expiry (ties do not change the answer)
  for i = 0, size - 1 do
    local at = base + STRIDE * i
    if s[at + 1] - now > TIME_TOLERANCE_MS then costs[#costs + 1] = { s[at + 1], s[at + 2] } end
  end
  table.sort(costs, function(a, b) return a[1] < b[1] end)
  local freed = 0
  for k = 1, #costs do
    freed = freed + costs[k][2]
    if live - freed + cost <= limit then
      retry = ceil_ms(costs[k][1] - now)
      break
    end
  end
  return false, floor_count(limit - live), ceil_ms(latest - now), retry, 0
end

-- refund: a no-op in the TS step (capacity comes back through release), so apply.lua skips it.

-- idle(s, now, spec) -> latest stored expiry - now (0 when nothing is stored).
local function idle(s, now, spec)
  local size = stored_size(s, spec.limit)
  local latest = now
  for i = 0, size - 1 do
    local expiry = s[LEASES + STRIDE * i + 1]
    if expiry > latest then latest = expiry end
  end
  return latest - now
end

-- release(s, now, spec, leaseId) -> whether the lease was held (found and unexpired).
local function release(s, now, spec, lease_id)
  if not (lease_id > 0) then return false end
  local base = LEASES
  local size = stored_size(s, spec.limit)
  for i = 0, size - 1 do
    local at = base + STRIDE * i
    if s[at] == lease_id then
      local held = s[at + 1] - now > TIME_TOLERANCE_MS
      local inflight = s[INFLIGHT] - s[at + 2]
      local n = size - 1
      move_last(s, base, i, n)
      s[SIZE] = n
      if n == 0 or inflight < 0 then s[INFLIGHT] = 0 else s[INFLIGHT] = inflight end
      return held
    end
  end
  return false
end

-- reset_keep(s) -> the last lease id handed out (0: none), which a reset keeps (the TS step's resetKeep): apply.lua
-- writes it into the otherwise fresh state, so a key reset and acquired again in the same millisecond never hands
-- out an id twice.
local function reset_keep(s)
  return s[NEXT_ID]
end

local function width(spec)
  return LEASES + STRIDE * spec.limit
end

-- scan: every call reads every stored lease, so apply.lua decodes the state whole, up front.
return {
  apply = apply,
  refund = false,
  idle = idle,
  width = width,
  ring = true,
  scan = true,
  release = release,
  reset_keep = reset_keep,
}
