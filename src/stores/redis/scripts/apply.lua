-- apply.lua: the one script Sluice's Redis store runs (EVALSHA). It applies a batch of groups in order. A group
-- is one Store call of the client (op, time, items); it is all-or-nothing across every limit of every one of its
-- items, and independent of the other groups. The algorithm twins (gcra.lua ... concurrency.lua) are pasted by
-- the loader (src/stores/redis/script.ts) in place of the kernels marker line below, as the branches of
-- `kernel(code)`, so that a call only creates the closures of the algorithms it uses.
--
-- KEYS: the state key of every limit of every item, in batch order (group, then item, then the limits of the
--   item's set in declaration order). The store names them `<prefix>:{<identity>}:<namespace>:<policy>`. A key
--   may appear several times; the script keeps one copy of each state per call, so later groups see earlier
--   ones. A CONSUME_ONCE group's idempotency record key comes first, before its items' keys; the store names it
--   `<prefix>:{<identity of its first item>}:idem:<record>`, in the slot of that item.
--
-- ARGV[1]: one binary string of little-endian IEEE-754 doubles (struct '<d'), read in this order. Binary, so
--   that no number is formatted by the client or parsed by Lua (tonumber costs ~300 ns here, an unpack ~70 ns)
--   and every value, fractions included, arrives exactly:
--     ttlMarginMs        added to every TTL (whole ms >= 0)
--     S                  number of limit sets described next (a batch names each distinct set once)
--     per set:
--       n                number of limits of the set
--       per limit, 5 doubles:
--         code           algorithm: 1 gcra, 2 token_bucket, 3 leaky_bucket, 4 fixed_window, 5 sliding_window,
--                        6 sliding_log, 7 bucketed_window, 8 concurrency
--         limit          units per period (leases in flight for concurrency)
--         periodMs       period (lease lifetime for concurrency)
--         burst          most units at once (equal to limit except for gcra, token_bucket, leaky_bucket)
--         bucketMs       bucket width of bucketed_window (0 otherwise)
--     G                  number of groups
--     per group:
--       op               1 consume, 2 peek, 3 refund, 4 reset, 5 release, 6 consume once (idempotent)
--       now              epoch ms to decide at (fractions allowed), or -1 for the server clock (TIME, read once)
--       m                number of items
--       ttlMs            consume once only: how long its record lives (whole ms, clamped to [1, MAX_TTL_MS])
--       atMs             consume once only: the instant of the decision on the caller's clock (epoch ms, fractions
--                        allowed), kept in the record so every replay reports the first decision's instant
--       per item:
--         set            index of the item's limit set (1-based)
--         cost           consume / peek: units asked for; refund: units given back; reset / release: 0
--         lease ids      release only: one per limit of the set (0: none for that limit)
--
-- ARGV[2]: optional, the reply's form: absent, the flat array below; present (the store sends "b", when its client
--   can receive a reply as bytes: ioredis `evalshaBuffer`), the same values as ONE binary string of little-endian
--   IEEE-754 doubles (struct '<d', 8 bytes per value, packed 32 at a time at the end of the call). Binary, so that
--   the client decodes one bulk string instead of one integer per value (with ioredis, a bound function and a
--   number each) and every value arrives exactly. An `at` string below is then its number (NaN for ""), and a
--   recorded status that is not a number is NaN (the client refuses such a record).
--
-- Reply: a flat array of integers (and one string per consume once group), variable-length (each Redis integer of
-- a reply costs ~100 ns to convert, so a status carries only what it needs); per group:
--   release: one integer, 1
--   consume once: `state` (0: the statuses below are this call's; 1: they are the recorded ones, replayed; 2: a
--     claim holds the record, see once.lua: nothing was done and no status follows), the number of integers of the
--     statuses that follow, `at` (a string: the recorded atMs when replayed, as written; "" otherwise or for a
--     record that predates it), then the statuses as for consume
--   any other op: per item and per limit of its set, one status:
--     head               allowed + 2 * warning + 4 * committed + 8 * (a leaseId follows)
--                          allowed    this limit's own verdict; the item passes only when committed is set
--                          warning    the limit's warning flag (hysteresis of src/core/limit-state.ts)
--                          committed  the group's: 0 when a consume was denied (then nothing of the group was
--                                     written), 1 otherwise; the same in every status of the group
--     remaining          whole units left
--     resetAfterMs       whole ms until the key is back to fresh
--     retryAfterMs       only when not allowed: whole ms until the cost could pass (-1 when it never can)
--     leaseId            only when head has 8: the concurrency lease taken (committed consume)
-- Every value but `at` is a whole number below 2^53 (or -1), so the array's integers and the binary doubles are
-- the same numbers.
--
-- State: one Redis string per limit and identity. Byte 1 is a flags byte, `code * 2 + warning`: the algorithm
-- (a key written by another algorithm reads as fresh, as in the reference store) and the warning bit. Then the
-- kernel's state fields in the order of the TS Float64Array, each a little-endian double (struct '<d'): exact
-- round trips, no formatting. Small states (gcra: 1 field; token_bucket, leaky_bucket, fixed_window: 2;
-- sliding_window: 3) are decoded whole, with one unpack; ring states (sliding_log, bucketed_window, concurrency)
-- are decoded lazily, field by field, and bytes past the end of the string read as 0, so a changed limit cuts or
-- extends the ring exactly as the TS array is cut or extended; but a queue (sliding_log, bucketed_window, kernel
-- flag `queue`) whose capacity changed is re-laid in order first, as ringResize of src/algorithms/ring.ts does
-- (`load`, below).
--
-- Warning flag (as the reference store keeps it): updated by a committed consume with nextWarning; cleared by
-- a consume that finds the state idle (idleAfterMs 0); a peek reports nextWarning of the stored flag (when not
-- idle) without storing it.
--
-- Writes happen once per changed key at the end of the call, after every read (idempotency records last):
-- PSETEX key ttl value, with
-- ttl = ceil(idleAfterMs as of its last change, under the limit it was changed with) + ttlMarginMs, or DEL after
-- a reset (but for a concurrency key that handed out a lease: its last lease id stays, with no lease, for the
-- margin). So a call that fails on a key (a Cluster node that no longer serves it) has written nothing. A denied
-- consume writes nothing (except a warning flag cleared on an idle state), nor does a refund of a state with no
-- units in use (missing, or idle: as in every store). So each key's TTL is the time after which it holds no
-- information, plus the margin: what separate calls would have left.
--
-- Idempotency (consume once, op 6): one Store.applyOnce call. Checked and recorded in this same call, so two
-- retries with one record serialize in Redis (whichever processes send them) and only the first counts:
--   - its record key is read first (GET; or this call's own pending record, when an earlier group of the same
--     batch wrote it). Present: its statuses are replayed verbatim with its atMs, the items are neither read nor
--     changed. Holding a claim (a value starting with `~`, set by once.lua for a call spread over several nodes):
--     state 2, nothing is done, and the store asks again after a pause;
--   - missing (never written, or expired): the group is a consume like op 1, and its statuses, admitted or denied,
--     become the record: `<atMs>;<statuses>`, atMs as %.17g (exact) and the statuses as decimal numbers joined
--     by commas, written with PSETEX ttlMs after the states. The statuses are the group's compact reply, so the
--     value is bounded by its items (at most 7 limits each, 3 to 5 numbers per limit). A retry decodes it with its
--     own items (the store reports a record that does not fit them). once.lua writes records of the same form.
-- Groups of op 6 take the general path only; batches without them keep the fast and small paths.
--
-- Three paths, with the same answers and the same writes (test/integration/redis-batch-paths.test.ts):
--   fast     every group a consume of one item, one limit set of ONE gcra, token_bucket, leaky_bucket or
--            fixed_window limit: the common Limiter call, alone or coalesced by the store. The kernel step is
--            written out inline (no function is created or called); per item one unpack of ARGV, one GET (or its
--            share of one MGET: see Reads below), one unpack of the state, one pack; then one PSETEX per changed key.
--   small    every group a consume of one item, one limit set of small-state limits only (gcra, token_bucket,
--            leaky_bucket, fixed_window, sliding_window): several limits, or one sliding_window. The twins'
--            kernels on one scratch state per limit; the general path's all-or-nothing across the limits.
--   general  everything else: peek, refund, reset, release, several items per group, several limit sets,
--            ring states (sliding_log, bucketed_window, concurrency).
-- A path gives up at the first group it does not take (having written nothing: reads only) and the general path
-- redoes the whole batch.
--
-- Costs inside Redis 7.0 that shaped this (bench/lib/lua-cost.mjs): per call, a closure ~100 ns and a table
-- ~100-250 ns (the whole script body runs on every call, so every function it defines is created again), TIME
-- ~1 us; per redis.call ~0.5-2 us, a number argument costing ~0.6 us more than a string (Redis formats it with
-- %.17g); per reply integer ~100 ns. Hence: no function defined before the fast path, the helpers and kernels
-- only on the paths that use them, TIME at most once per call, TTLs passed as strings (formatted with %d, and
-- reused while equal), PSETEX (a little cheaper than SET ... PX), and the short statuses above.
--
-- Reads (MULTI_READ): with several groups, the fast and small paths read every key of the batch with one MGET
-- (up to MGET_KEYS keys) before the first step, instead of one GET per key: one redis.call instead of one per
-- decision. Measured inside Redis (bench/lib/lua-cost.mjs, allowed, us a decision at 8 / 32 / 64 decisions a call):
-- gcra 2.39 / 2.05 / 1.95 -> 2.17 / 1.91 / 1.73, fixed_window 2.49 / 2.16 / 2.04 -> 2.32 / 1.91 / 1.89, a set of
-- gcra + sliding_window (the small path) 6.83 / 5.95 / 5.78 -> 6.32 / 5.49 / 5.43; one decision a call reads
-- with GET as before (5.1 us either way). The PSETEX of each changed key is now the larger part: without them
-- gcra at 32 took 1.03 us against 1.79. The values are the ones the GETs would have read (no write happens before
-- the end of the call), and a path that gives up has still written nothing. MGET answers nil both for a missing
-- key and for a key holding another type (a hash, a list ...), where GET fails the call (WRONGTYPE) before
-- anything is written; so a nil is read again with GET, and such a key fails the call on every path, as it did
-- before, instead of being overwritten. That GET is the old cost, paid for missing keys only (beside their share
-- of the MGET). A Redis Cluster refuses a multi-key command whose keys hash to different slots, even inside a
-- script flagged allow-cross-slot-keys, so the cluster variant of the script (assembled with `multiRead: false`,
-- script.ts) sets MULTI_READ false and reads key by key.

local TIME_TOLERANCE_MS = 1e-3 -- src/core/time-math.ts
local UNIT_TOLERANCE = 1e-3 -- src/core/time-math.ts
local CEIL_SLACK_MS = 1e-4 -- src/core/time-math.ts
local WARNING_ENTER_REMAINING = 0.2 -- src/core/limit-state.ts
local WARNING_LEAVE_REMAINING = 0.3 -- src/core/limit-state.ts
local MAX_TTL_MS = 1e13 -- Redis formats a Lua number >= 1e14 with an exponent, which PX refuses
local MULTI_READ = true -- @multi-read: false in the cluster variant (see "Reads" above)
local MGET_KEYS = 1000 -- batches of more keys read key by key (unpack refuses more than ~8000 values)

local floor, ceil = math.floor, math.ceil
local INF = math.huge
local call = redis.call
local spack, sunpack, unpack = struct.pack, struct.unpack, unpack
local byte, sub, format = string.byte, string.sub, string.format
local KEYS = KEYS

local CONSUME, PEEK, REFUND, RESET, RELEASE, CONSUME_ONCE = 1, 2, 3, 4, 5, 6
local REPLAYED = 0 -- a CONSUME_ONCE group answered from its record: its items are skipped (never read)
local P = ARGV[1]
local BINARY = ARGV[2] ~= nil -- the reply's form (see the header)
local F32 = "<dddddddddddddddddddddddddddddddd" -- struct format of 32 doubles: the binary reply's chunk
local margin, nsets, sets_at = sunpack("<dd", P)
local server_now -- the server clock (TIME), read at most once per call
local px_ttl, px_str -- the last TTL written and its decimal string (see px_of)

-- Fast path (see the header): one set of one gcra, token_bucket, leaky_bucket or fixed_window limit, every group
-- a consume of one item. The kernel steps are written out inline, with no function call: the same arithmetic,
-- operation for operation, as `apply` and `idle` of gcra.lua, drain.lua and fixed-window.lua (and their TS
-- originals), with ceil_ms, floor_count and next_warning expanded in place. The differential and conformance
-- tests hold both paths to the TS kernels bit for bit.
local inline_tried = false
if nsets == 1 then
  local n, code, limit, period, burst, _, groups_at = sunpack("<dddddd", P, sets_at)
  if n == 1 and code >= 1 and code <= 4 then
    inline_tried = true
    local ngroups, at = sunpack("<d", P, groups_at)
    local last = #P - 39 -- a group of one item is 5 doubles: op, now, m, set, cost
    local t = period / limit -- LimitSpec.emissionMs
    local tol = TIME_TOLERANCE_MS -- rateToleranceMs (drain; gcra's, of T on the grid, below): min(1e-3, 1e-3 * T)
    if t < 1 then tol = UNIT_TOLERANCE * t end
    local tol_units = tol / t -- drain
    local enter, leave = WARNING_ENTER_REMAINING * burst, WARNING_LEAVE_REMAINING * burst -- next_warning's
    local flags0 = code * 2
    local width2 = code ~= 1 -- gcra keeps 1 field, the others 2
    local len = width2 and 17 or 9
    local out, nout = {}, 0
    -- Writes wait for the end (after every read): `pend` holds key, value, PSETEX ttl per changed key, and with
    -- several groups `seen[key]` is its place there, so a key named again steps from its pending state.
    local pend, npend = {}, 0
    local seen, vals
    if ngroups > 1 then
      seen = {}
      -- Every key's value at once ("Reads" above), in KEYS order: vals[i] is what GET KEYS[i] answers.
      if MULTI_READ and #KEYS <= MGET_KEYS then vals = call("MGET", unpack(KEYS)) end
    end
    local ki, g = 0, 1
    while g <= ngroups and at <= last do
      local op, now, m, _, cost, nxt = sunpack("<ddddd", P, at)
      if op ~= CONSUME or m ~= 1 then break end
      if now < 0 then
        if server_now == nil then
          local tm = call("TIME")
          server_now = tm[1] * 1000 + tm[2] / 1000
        end
        now = server_now
      end
      ki = ki + 1
      local key = KEYS[ki]
      local b = seen and seen[key]
      local raw
      if b then
        raw = pend[b + 2]
      elseif vals then
        raw = vals[ki]
        if not raw then raw = call("GET", key) end -- missing, or not a string: GET answers as before ("Reads")
      else
        raw = call("GET", key) -- false for a missing key
      end
      -- The state: missing, of another algorithm, or of another length reads as fresh (x, y = 0, 0).
      local x, y, w = 0, 0, false
      if raw and #raw == len then
        local flags, a, c
        if width2 then
          flags, a, c = sunpack("<Bdd", raw)
        else
          flags, a = sunpack("<Bd", raw)
        end
        if floor(flags / 2) == code then
          x, w = a, flags % 2 == 1
          if width2 then y = c end
        end
      end
      local dirty = false
      local allowed, remaining, reset, retry
      if code == 1 then
        -- gcra.lua; x = TAT. A limit idle at this touch has no history: its warning flag goes.
        if w and not (x - now > 0) then
          w, dirty = false, true
        end
        -- T rounded up to the epoch's grid at now, tau and the tolerance of it (gcra.lua's apply).
        local tg = now + t
        if tg - now < t then tg = tg + tg * 1.2e-16 end
        tg = tg - now
        local tau = burst * tg
        local tolg = TIME_TOLERANCE_MS
        if tg < 1 then tolg = UNIT_TOLERANCE * tg end
        local was = 0
        if x > now then was = x - now end
        local ahead -- how far ahead the key is, reported: after the cost when allowed, as the new TAT holds it
        if cost > burst then
          allowed, retry, ahead = false, INF, was
        else
          local after = was + cost * tg
          local excess = after - tau
          if excess <= tolg then
            x = now + after
            if x - now < after then x = x + x * 1.2e-16 end
            allowed, retry, ahead = true, 0, x - now
          else
            allowed, ahead = false, was
            retry = ceil(excess - 0.9 * tolg)
          end
        end
        local free = tau - ahead + tolg
        remaining = 0
        if free >= tg then remaining = floor(free / tg) end
        reset = 0
        if ahead - 0.9 * tolg > 0 then reset = ceil(ahead - 0.9 * tolg) end
      elseif code == 4 then
        -- fixed-window.lua; x = count, y = windowId (fresh when past, or more than one window ahead: an id of
        -- another, shorter period).
        local win = floor((now + TIME_TOLERANCE_MS) / period)
        if w then
          local idle = 0
          if not (x <= 0 or win > y or y > win + 1) then idle = (y + 1) * period - now end
          if idle <= 0 then
            w, dirty = false, true
          end
        end
        local count = 0
        if win <= y and y <= win + 1 then
          win = y
          count = x
          if count > limit then count = limit end
        end
        local until_end = (win + 1) * period - now
        if cost > limit then
          allowed, retry = false, INF
        elseif count + cost <= limit then
          allowed, retry = true, 0
          count = count + cost
          if cost > 0 then x, y = count, win end
        else
          allowed = false
          retry = 0
          if not (until_end <= CEIL_SLACK_MS) then retry = ceil(until_end - CEIL_SLACK_MS) end
        end
        reset = 0
        if count > 0 and not (until_end <= CEIL_SLACK_MS) then reset = ceil(until_end - CEIL_SLACK_MS) end
        remaining = limit - count
      else
        -- drain.lua (token_bucket, leaky_bucket); x = level, y = lastMs.
        if w and (x <= 0 or not (x * t - (now - y) > 0)) then
          w, dirty = false, true
        end
        local elapsed = 0
        if now > y then elapsed = now - y end
        local level = x - elapsed / t
        if not (level > 0) then level = 0 end
        local lag = 0
        if y > now then lag = y - now end
        local lvl = level -- the level reported: after the cost when allowed
        if cost > burst then
          allowed, retry = false, INF
        else
          local after = level + cost
          local excess = (after - burst) * t
          if excess <= tol then
            allowed, retry, lvl = true, 0, after
            if cost > 0 then
              x = after
              if now > y then y = now end
            end
          else
            allowed = false
            local r = lag + excess
            retry = 1 -- a wait under CEIL_SLACK_MS (T < 0.1 ms) passes at the next whole ms
            if not (r <= CEIL_SLACK_MS) then retry = ceil(r - CEIL_SLACK_MS) end
          end
        end
        reset = 0
        if lvl > 0 then
          local r = lag + lvl * t
          if not (r <= CEIL_SLACK_MS) then reset = ceil(r - CEIL_SLACK_MS) end
        end
        remaining = burst - lvl
        if remaining <= 0 then
          remaining = 0
        else
          remaining = floor(remaining + tol_units)
        end
      end
      local head = 0
      if allowed then
        if remaining < enter then
          w = true
        elseif remaining > leave then
          w = false
        end
        dirty = true
        head = 5 -- allowed, committed
      end
      if w then head = head + 2 end
      out[nout + 1] = head
      out[nout + 2] = remaining
      out[nout + 3] = reset
      if allowed then
        nout = nout + 3
      else
        if retry == INF then retry = -1 end
        out[nout + 4] = retry
        nout = nout + 4
      end
      if dirty then
        -- Value and TTL (idle at now, as `idle` of the twin, plus the margin) of the changed state.
        local idle = 0
        local flags = flags0
        if w then flags = flags + 1 end
        local v
        if code == 1 then
          v = spack("<Bd", flags, x)
          if x - now > 0 then idle = x - now end
        else
          v = spack("<Bdd", flags, x, y)
          if code == 4 then
            local win = floor((now + TIME_TOLERANCE_MS) / period)
            if not (x <= 0 or win > y or y > win + 1) then idle = (y + 1) * period - now end
          elseif not (x <= 0) then
            local ahead = x * t - (now - y)
            if ahead > 0 then idle = ahead end
          end
        end
        local ttl = ceil(idle) + margin
        if not (ttl >= 1) then
          ttl = 1
        elseif ttl > MAX_TTL_MS then
          ttl = MAX_TTL_MS
        end
        if ttl ~= px_ttl then
          px_ttl = ttl
          px_str = format("%d", ttl)
        end
        if b then
          pend[b + 2], pend[b + 3] = v, px_str
        else
          pend[npend + 1], pend[npend + 2], pend[npend + 3] = key, v, px_str
          if seen then seen[key] = npend end
          npend = npend + 3
        end
      end
      at = nxt
      g = g + 1
    end
    if g > ngroups then
      for i = 1, npend, 3 do
        call("PSETEX", pend[i], pend[i + 2], pend[i + 1])
      end
      if not BINARY then return out end
      -- The binary reply, as reply() below (no function is created on this path).
      if nout <= 32 then return spack(sub(F32, 1, nout + 1), unpack(out, 1, nout)) end
      local parts, np, i = {}, 0, 1
      while i <= nout do
        local j = i + 31
        if j > nout then j = nout end
        np = np + 1
        parts[np] = spack(sub(F32, 1, j - i + 2), unpack(out, i, j))
        i = j + 1
      end
      return table.concat(parts)
    end
    -- Another shape: nothing was written; the general path below redoes the batch (TIME is kept).
  end
end

-- Helpers of the small-state and general paths.

-- ceilMs of src/core/time-math.ts: rounds a duration up to whole ms, ignoring noise below CEIL_SLACK_MS.
local function ceil_ms(ms)
  if ms <= CEIL_SLACK_MS then return 0 end
  return ceil(ms - CEIL_SLACK_MS)
end

-- floorCount of src/core/time-math.ts: rounds a count down, forgiving `tolerance` (default 1e-9) of noise.
local function floor_count(x, tolerance)
  if x <= 0 then return 0 end
  return floor(x + (tolerance or 1e-9))
end

-- nextWarning of src/core/limit-state.ts: against `capacity`, the spec's burst (what `remaining` counts down
-- from; equal to the limit except for gcra, token_bucket and leaky_bucket).
local function next_warning(previous, remaining, capacity)
  if remaining < WARNING_ENTER_REMAINING * capacity then return true end
  if remaining > WARNING_LEAVE_REMAINING * capacity then return false end
  return previous
end

-- The PSETEX argument of a state idle for `ms` at its last change: ceil(ms) + the margin, clamped to
-- [1, MAX_TTL_MS], as a decimal string, reused while consecutive writes share it. A whole number below 1e14
-- prints with %d exactly as Redis would print the number (%.17g), for about half the cost.
local function px_of(ms)
  local ttl = ceil(ms) + margin
  if not (ttl >= 1) then
    ttl = 1
  elseif ttl > MAX_TTL_MS then
    ttl = MAX_TTL_MS
  end
  if ttl ~= px_ttl then
    px_ttl = ttl
    px_str = format("%d", ttl)
  end
  return px_str
end

local out, nout = {}, 0 -- the reply (see emit)

-- The script's answer: `out` as it is, or packed as little-endian doubles, 32 per struct.pack (see the header).
local function reply()
  if not BINARY then return out end
  if nout <= 32 then return spack(sub(F32, 1, nout + 1), unpack(out, 1, nout)) end
  local parts, np, i = {}, 0, 1
  while i <= nout do
    local j = i + 31
    if j > nout then j = nout end
    np = np + 1
    parts[np] = spack(sub(F32, 1, j - i + 2), unpack(out, i, j))
    i = j + 1
  end
  return table.concat(parts)
end

-- Appends one limit's status to the reply (the layout is in the header).
local function emit(allowed, remaining, reset, retry, warning, lease, committed)
  local head = 0
  if allowed then head = 1 end
  if warning then head = head + 2 end
  if committed then head = head + 4 end
  if lease ~= 0 then head = head + 8 end
  out[nout + 1] = head
  out[nout + 2] = remaining
  out[nout + 3] = reset
  nout = nout + 3
  if not allowed then
    if retry == INF then retry = -1 end
    nout = nout + 1
    out[nout] = retry
  end
  if lease ~= 0 then
    nout = nout + 1
    out[nout] = lease
  end
end

--[[@kernels]]

-- Small-state path (see the header): one set of gcra, token_bucket, leaky_bucket, fixed_window or
-- sliding_window limits (several, or one sliding_window), every group a consume of one item. The general path's
-- consume, with the twins' kernels, on one scratch state per limit instead of an entry table per key; writes
-- wait for the end in `pend` (key, value, PSETEX ttl, limit index per changed key), `seen[key]` being its
-- place there. It gives up (having written nothing) on a group of another shape, or on a key named by two
-- limits, and the general path redoes the batch.
if nsets == 1 and not inline_tried then
  local n, pos = sunpack("<d", P, sets_at)
  local specs, scr, kernels = {}, {}, {}
  local small = true
  for j = 1, n do
    local code, limit, period, burst, bucket
    code, limit, period, burst, bucket, pos = sunpack("<ddddd", P, pos)
    if not (code >= 1 and code <= 5) then
      small = false
      break
    end
    local k = kernels[code]
    if k == nil then
      k = kernel(code)
      kernels[code] = k
    end
    specs[j] = {
      code = code,
      k = k,
      limit = limit,
      period = period,
      burst = burst,
      bucket = bucket,
      t = period / limit, -- LimitSpec.emissionMs
      width = k.width,
    }
    scr[j] = { [0] = 0, 0, 0 }
  end
  if small then
    local ngroups, at = sunpack("<d", P, pos)
    local last = #P - 39 -- a group of one item is 5 doubles: op, now, m, set, cost
    local pend, npend = {}, 0
    local seen, vals
    if ngroups > 1 then
      seen = {}
      -- Every key's value at once ("Reads" above), in KEYS order: vals[i] is what GET KEYS[i] answers.
      if MULTI_READ and #KEYS <= MGET_KEYS then vals = call("MGET", unpack(KEYS)) end
    end
    -- Per limit j of the current group: its pending place (or false), warning flag, whether it changed, and
    -- with several limits (4j-3 .. 4j of `saved`) its fields and flag before the steps.
    local gb, gw, gd = {}, {}, {}
    local saved, done
    if n > 1 then saved, done = {}, {} end
    local ki, g = 0, 1
    while g <= ngroups and at <= last do
      local op, now, m, _, cost, nxt = sunpack("<ddddd", P, at)
      if op ~= CONSUME or m ~= 1 then break end
      if now < 0 then
        if server_now == nil then
          local tm = call("TIME")
          server_now = tm[1] * 1000 + tm[2] / 1000
        end
        now = server_now
      end
      local clash = false
      for j = 1, n do
        local key = KEYS[ki + j]
        for i = 1, j - 1 do
          if KEYS[ki + i] == key then clash = true end
        end
        local b = seen and seen[key]
        if b and pend[b + 4] ~= j then clash = true end
        gb[j] = b or false
      end
      if clash then break end
      for j = 1, n do
        local spec, s, b = specs[j], scr[j], gb[j]
        local raw
        if b then
          raw = pend[b + 2]
        elseif vals then
          raw = vals[ki + j]
          if not raw then raw = call("GET", KEYS[ki + j]) end -- missing, or not a string ("Reads")
        else
          raw = call("GET", KEYS[ki + j]) -- false for a missing key
        end
        -- Missing, of another algorithm, or of another length: fresh, as in the reference store.
        local w = false
        s[0], s[1], s[2] = 0, 0, 0
        local width = spec.width
        if raw and #raw == 1 + 8 * width then
          local flags, x, y, z
          if width == 1 then
            flags, x = sunpack("<Bd", raw)
          elseif width == 2 then
            flags, x, y = sunpack("<Bdd", raw)
          else
            flags, x, y, z = sunpack("<Bddd", raw)
          end
          if floor(flags / 2) == spec.code then
            w = flags % 2 == 1
            s[0] = x
            if width >= 2 then s[1] = y end
            if width == 3 then s[2] = z end
          end
        end
        -- A limit idle at this touch has no history: its warning flag goes (kept even when denied).
        local dirty = false
        if w and spec.k.idle(s, now, spec) <= 0 then
          w, dirty = false, true
        end
        gw[j], gd[j] = w, dirty
      end
      if n == 1 then
        -- One limit: the step itself is all-or-nothing (a denied step writes nothing).
        local spec = specs[1]
        local allowed, remaining, reset, retry, lease = spec.k.apply(scr[1], now, spec, cost, true)
        if allowed then
          gw[1] = next_warning(gw[1], remaining, spec.burst)
          gd[1] = true
        end
        emit(allowed, remaining, reset, retry, gw[1], lease, allowed)
      else
        -- Several limits: every step in order; on the first denial put every state back and report each
        -- limit's own verdict on the unchanged state (an allowed one re-run for cost 0), as the general path.
        for j = 1, n do
          local s = scr[j]
          saved[4 * j - 3], saved[4 * j - 2], saved[4 * j - 1], saved[4 * j] = s[0], s[1], s[2], gw[j]
        end
        local ok, nd = true, 0
        for j = 1, n do
          local spec = specs[j]
          local allowed, remaining, reset, _, lease = spec.k.apply(scr[j], now, spec, cost, true)
          if not allowed then
            ok = false
            break
          end
          local w = next_warning(gw[j], remaining, spec.burst)
          gw[j] = w
          done[nd + 1], done[nd + 2], done[nd + 3], done[nd + 4] = remaining, reset, w, lease
          nd = nd + 4
        end
        if ok then
          for j = 1, n do gd[j] = true end
          for d = 1, nd, 4 do emit(true, done[d], done[d + 1], 0, done[d + 2], done[d + 3], true) end
        else
          for j = 1, n do
            local s = scr[j]
            s[0], s[1], s[2], gw[j] = saved[4 * j - 3], saved[4 * j - 2], saved[4 * j - 1], saved[4 * j]
          end
          for j = 1, n do
            local spec, s = specs[j], scr[j]
            local k = spec.k
            local allowed, remaining, reset, retry = k.apply(s, now, spec, cost, false)
            if allowed then allowed, remaining, reset, retry = k.apply(s, now, spec, 0, false) end
            emit(allowed, remaining, reset, retry, gw[j], 0, false)
          end
        end
      end
      for j = 1, n do
        if gd[j] then
          local spec, s = specs[j], scr[j]
          local flags = spec.code * 2
          if gw[j] then flags = flags + 1 end
          local v
          if spec.width == 1 then
            v = spack("<Bd", flags, s[0])
          elseif spec.width == 2 then
            v = spack("<Bdd", flags, s[0], s[1])
          else
            v = spack("<Bddd", flags, s[0], s[1], s[2])
          end
          local px = px_of(spec.k.idle(s, now, spec))
          local b = gb[j]
          if b then
            pend[b + 2], pend[b + 3] = v, px
          else
            local key = KEYS[ki + j]
            pend[npend + 1], pend[npend + 2], pend[npend + 3], pend[npend + 4] = key, v, px, j
            if seen then seen[key] = npend end
            npend = npend + 4
          end
        end
      end
      ki = ki + n
      at = nxt
      g = g + 1
    end
    if g > ngroups then
      for i = 1, npend, 4 do
        call("PSETEX", pend[i], pend[i + 2], pend[i + 1])
      end
      return reply()
    end
    out, nout = {}, 0 -- another shape: nothing was written; the general path redoes the batch
  end
end

-- General path.

-- Ring-state helpers, created on first use (closures cost ~100-250 ns each, per call):
--   R.state(S, eager)   a ring state over the stored string S: a numeric field not yet read decodes from S
--                       (0 past its end) and is cached in the table. With `eager` (algorithms that scan every
--                       field, such as concurrency), every stored field is decoded up front, 32 per unpack, and
--                       kept in `O` too, so the write-back compares without decoding again;
--   R.encode(s, flags)  the string to store: S with the changed fields patched in, zero-filled past its end.
local R
local function ring()
  if R ~= nil then return R end
  local mt = {
    __index = function(s, i)
      local str = rawget(s, "S")
      local at = 2 + 8 * i
      local v = 0
      if at + 7 <= #str then v = sunpack("<d", str, at) end
      rawset(s, i, v)
      return v
    end,
  }
  local function encode(s, flags)
    local S = s.S
    local len = #S
    local idx, n = {}, 0
    local O = rawget(s, "O")
    for k, v in pairs(s) do
      if k ~= "S" and k ~= "O" then
        local at = 2 + 8 * k
        local old = O and O[k]
        if old == nil then
          old = 0
          if at + 7 <= len then old = sunpack("<d", S, at) end
        end
        if v ~= old then
          n = n + 1
          idx[n] = k
        end
      end
    end
    if n > 1 then table.sort(idx) end
    local parts, m = { string.char(flags) }, 1
    local from = 2
    for j = 1, n do
      local k = idx[j]
      local at = 2 + 8 * k
      if at > from then
        if from <= len then
          m = m + 1
          parts[m] = sub(S, from, at - 1)
        end
        local gap = len + 1
        if from > gap then gap = from end
        if at > gap then
          m = m + 1
          parts[m] = string.rep("\0", at - gap)
        end
      end
      m = m + 1
      parts[m] = spack("<d", s[k])
      from = at + 8
    end
    if from <= len then
      m = m + 1
      parts[m] = sub(S, from)
    end
    return table.concat(parts)
  end
  local function state(S, eager)
    local s = { S = S }
    local n = floor((#S - 1) / 8)
    if eager and n > 0 then
      local O = {}
      local i = 0
      while i < n do
        local m = n - i
        if m > 32 then m = 32 end
        local vals = { sunpack("<" .. string.rep("d", m), S, 2 + 8 * i) }
        for j = 1, m do
          s[i + j - 1] = vals[j]
          O[i + j - 1] = vals[j]
        end
        i = i + m
      end
      s.O = O
    end
    return setmetatable(s, mt)
  end
  R = { state = state, encode = encode }
  return R
end

-- Parse the limit sets.
local pos = sets_at
local kernels = {}
local sets = {}
for si = 1, nsets do
  local n
  n, pos = sunpack("<d", P, pos)
  local set = {}
  for j = 1, n do
    local code, limit, period, burst, bucket
    code, limit, period, burst, bucket, pos = sunpack("<ddddd", P, pos)
    local k = kernels[code]
    if k == nil then
      k = kernel(code)
      kernels[code] = k
    end
    local spec = {
      code = code,
      k = k,
      ring = k.ring,
      limit = limit,
      period = period,
      burst = burst,
      bucket = bucket,
      t = period / limit, -- LimitSpec.emissionMs
      width = k.width,
    }
    if k.ring then spec.width = k.width(spec) end
    set[j] = spec
  end
  sets[si] = set
end

-- Every state this call touches, by key. An entry holds the spec it was last read with, the warning
-- flag `w`, whether Redis holds (or will hold) it (`exists`), whether it must be written back (`dirty`), the
-- time of its last change (`now`), and its state `s`: the entry itself for small states (fields e[0..2]), a
-- ring().state for ring states.
local cache = {}

-- Fresh state for `spec` in `e`.
local function clear(e, spec)
  e.w = false
  e.exists = false
  if spec.ring then
    e.s = ring().state("")
  else
    e[0], e[1], e[2] = 0, 0, 0
    e.s = e
  end
end

-- The entry of `key` read as `spec`: from Redis once per call, then from the cache.
local function load(key, spec, now)
  local e = cache[key]
  local raw -- a ring state's string, laid out for `spec` at the end
  if e == nil then
    raw = call("GET", key)
    e = { [0] = 0, 0, 0, spec = spec, w = false, exists = false, dirty = false, now = now, at = spec, s = false }
    e.s = e
    cache[key] = e
    local flags = raw and byte(raw, 1) -- GET answers false for a missing key
    if not flags or floor(flags / 2) ~= spec.code then
      if spec.ring then e.s = ring().state("") end
      return e -- missing, or written by another algorithm: fresh, as in the reference store
    end
    local width = spec.width
    if spec.ring then
      -- laid out at the end
    elseif #raw ~= 1 + 8 * width then
      return e -- not a state of this algorithm: fresh
    elseif width == 1 then
      local _, x = sunpack("<Bd", raw)
      e[0] = x
    elseif width == 2 then
      local _, x, y = sunpack("<Bdd", raw)
      e[0], e[1] = x, y
    else
      local _, x, y, z = sunpack("<Bddd", raw)
      e[0], e[1], e[2] = x, y, z
    end
    e.w = flags % 2 == 1
    e.exists = true
    if not spec.ring then return e end
  end
  local was = e.spec
  if was ~= spec then
    -- The same key under another limit set in this call (a limiter reconfigured while calls were in flight).
    if was.code ~= spec.code then
      local existed = e.exists
      clear(e, spec)
      if existed then e.dirty = true end -- deleted at the end unless written again
    elseif spec.k.queue and was.width ~= spec.width then
      -- A queue under another capacity: laid out at the end from its fields as they stand, as a later call would
      -- read them once stored.
      raw = ring().encode(e.s, 0)
    elseif spec.ring and was.width > spec.width then
      -- Cut the ring as the TS array is cut: the fields past the new width go, from the table, from S and from
      -- O (the values decoded before the cut; encode compares a field with O, else with S, else with 0), so a
      -- field written there again under a wider limit later in this call differs from what S holds and is stored.
      local s = e.s
      for k in pairs(s) do
        if k ~= "S" and k ~= "O" and k >= spec.width then s[k] = nil end
      end
      local O = rawget(s, "O")
      if O then
        for k in pairs(O) do
          if k >= spec.width then O[k] = nil end
        end
      end
      s.S = sub(s.S, 1, 1 + 8 * spec.width)
      if e.exists then
        e.dirty = true
        e.now, e.at = now, spec
      end
    end
    e.spec = spec
  end
  if not raw then return e end
  -- A ring state's string read as `spec`. A queue (sliding_log, bucketed_window: ring.ts's layout) whose capacity
  -- changed is re-laid as ringResize does: when its live entries [head, head + size) do not sit unwrapped within
  -- both capacities, they are unwrapped from the head into cells 0, 1, ..., the newest min(size, cap) of them, with
  -- head 0, the costs of older ones still live at the newest one's time folded into the oldest kept, and total the
  -- kept costs' sum. The old capacity is not stored: the string holds the cells its ring has used, all of them once
  -- it wrapped, so `from` below is the old capacity whenever the choice depends on it (and equals the capacity, or
  -- leaves the entries unwrapped within it, when it did not change: then nothing is read here that the kernel
  -- would not read).
  local width = spec.width
  local s
  if spec.k.queue then
    s = ring().state(raw)
    local from = ceil((floor((#raw - 1) / 8) - 3) / 2)
    local cap = (width - 3) / 2
    if from ~= cap then
      local head, size = s[0], s[1]
      if not (head >= 0 and head < from) then head = 0 end
      if not (size > 0) then size = 0 elseif size > from then size = from end
      local lim = cap
      if from < lim then lim = from end
      if head + size > lim then
        local keep = size
        if keep > cap then keep = cap end
        local scale = spec.bucket -- a bucket id's unit (bucketed_window); a timestamp's is 1 ms (sliding_log)
        if not (scale > 0) then scale = 1 end
        local newest = s[3 + 2 * ((head + size - 1) % from)]
        local folded = 0
        for k = 0, size - keep - 1 do
          local at = 3 + 2 * ((head + k) % from)
          if (s[at] - newest) * scale + spec.period > TIME_TOLERANCE_MS then folded = folded + s[at + 1] end
        end
        local t, total = ring().state(""), folded
        for j = 0, keep - 1 do
          local at = 3 + 2 * ((head + size - keep + j) % from)
          t[3 + 2 * j], t[4 + 2 * j] = s[at], s[at + 1]
          total = total + s[at + 1]
        end
        t[0], t[1], t[2], t[4] = 0, keep, total, t[4] + folded
        e.s = t
        if e.exists then
          e.dirty = true
          e.now, e.at = now, spec
        end
        return e
      end
    end
  end
  if #raw > 1 + 8 * width then
    raw, s = sub(raw, 1, 1 + 8 * width), nil -- the ring shrank: keep the common prefix, as the TS
    if e.exists then
      e.dirty = true
      e.now, e.at = now, spec
    end
  end
  e.s = s or ring().state(raw, spec.k.scan)
  return e
end

-- A copy of the state and warning flag of entry `e` (a multi-limit consume puts it back on a denial).
local function snapshot(e)
  local st = e.s
  if st ~= e then
    local c = {}
    for k, v in pairs(st) do c[k] = v end
    return { setmetatable(c, getmetatable(st)), e.w }
  end
  return { e[0], e.w, e[1], e[2] }
end

-- Puts back a snapshot: a small state's values into the entry; a ring state's copy itself, which is then the
-- live state (a step with commit on it would change the snapshot too: see the denied consume's second pass).
local function restore(e, c)
  if e.s ~= e then
    e.s = c[1]
  else
    e[0], e[1], e[2] = c[1], c[3], c[4]
  end
  e.w = c[2]
end

local ents = {} -- ents[n]: the entry of KEYS[n]
local items = {} -- per item i of the current group: [4i-3] set, [4i-2] cost, [4i-1] index of its first key,
                 -- [4i] position of its lease ids in ARGV[1] (release)
local ki = 0
local ngroups
ngroups, pos = sunpack("<d", P, pos)
-- Idempotency records (CONSUME_ONCE, see the header) written by this call, by key: { value, PX ttl string }.
-- A later group of the same call with the same record replays it from here.
local onces, nonces = {}, 0
local NO_AT = "" -- `at` of a group without a recorded instant: "" in the array reply, NaN in the binary one
if BINARY then NO_AT = 0 / 0 end
for _ = 1, ngroups do
  local op, now, nitems
  op, now, nitems, pos = sunpack("<ddd", P, pos)
  local okey, ottl, oat, mark -- CONSUME_ONCE: record key, TTL, decision instant, place of the statuses' count
  if op == CONSUME_ONCE then
    ottl, oat, pos = sunpack("<dd", P, pos)
    ki = ki + 1
    okey = KEYS[ki]
    local rec = onces[okey]
    local stored
    if rec then
      stored = rec[1]
    else
      stored = call("GET", okey) -- false when missing (or expired)
    end
    if stored and byte(stored, 1) == 126 then
      -- `~`: a claim of once.lua holds the record (a call spread over nodes is deciding it): nothing is done.
      out[nout + 1], out[nout + 2], out[nout + 3] = 2, 0, NO_AT
      nout = nout + 3
      op = REPLAYED
    elseif stored then
      -- Replay: `<atMs>;<statuses>` (no `;` in a record older than atMs); nothing is counted.
      local semi = string.find(stored, ";", 1, true)
      local body = stored
      out[nout + 1], out[nout + 3] = 1, NO_AT
      if semi then
        out[nout + 3] = sub(stored, 1, semi - 1)
        if BINARY then out[nout + 3] = tonumber(out[nout + 3]) or NO_AT end
        body = sub(stored, semi + 1)
      end
      local count = nout + 2
      nout = nout + 3
      for v in string.gmatch(body, "[^,]+") do
        nout = nout + 1
        out[nout] = tonumber(v)
        if BINARY and out[nout] == nil then out[nout] = NO_AT end
      end
      out[count] = nout - count - 1
      op = REPLAYED
    else
      out[nout + 1], out[nout + 3] = 0, NO_AT
      mark = nout + 2
      nout = nout + 3
      op = CONSUME
    end
  end
  if now < 0 then
    if server_now == nil then
      local t = call("TIME")
      server_now = t[1] * 1000 + t[2] / 1000
    end
    now = server_now
  end

  for i = 1, nitems do
    local si, cost
    si, cost, pos = sunpack("<dd", P, pos)
    local set = sets[si]
    items[4 * i - 3] = set
    items[4 * i - 2] = cost
    items[4 * i - 1] = ki + 1
    for j = 1, #set do
      ki = ki + 1
      if op ~= REPLAYED then ents[ki] = load(KEYS[ki], set[j], now) end
    end
    if op == RELEASE then
      items[4 * i] = pos
      pos = pos + 8 * #set
    end
  end

  if op == CONSUME then
    -- A limit idle at this touch has no history: its warning flag goes (kept even when denied).
    for i = 1, nitems do
      local set, f = items[4 * i - 3], items[4 * i - 1] - 1
      for j = 1, #set do
        local e = ents[f + j]
        if e.w and set[j].k.idle(e.s, now, set[j]) <= 0 then
          e.w = false
          e.exists, e.dirty, e.now, e.at = true, true, now, e.spec
        end
      end
    end
    if nitems == 1 and #items[1] == 1 then
      -- One limit: the step itself is all-or-nothing (a denied step writes nothing).
      local spec, e = items[1][1], ents[items[3]]
      local allowed, remaining, reset, retry, lease = spec.k.apply(e.s, now, spec, items[2], true)
      if allowed then
        e.w = next_warning(e.w, remaining, spec.burst)
        e.exists, e.dirty, e.now, e.at = true, true, now, e.spec
      end
      emit(allowed, remaining, reset, retry, e.w, lease, allowed)
    else
      -- Several limits: take every step in order (a key named twice sees its earlier step), keeping a copy of
      -- each state before its first step; on the first denial put every copy back and report each item's own
      -- verdict on the states its earlier items that pass on their own would leave (each limit's verdict there,
      -- an allowed one re-run for cost 0, as the reference store does): for items on distinct keys the unchanged
      -- states; the second of two items on one key is denied when the first takes what is left. Those items'
      -- steps are taken on the states (a ring state's on a copy: the one put back is its snapshot) and the
      -- snapshots put back at the end, so the states are as before the call: nothing of it is written (a key
      -- whose lapsed warning was cleared above is written back as it was), nor seen by the groups after it.
      local snaps = {}
      local done, nd = {}, 0
      local ok = true
      for i = 1, nitems do
        local set, f, cost = items[4 * i - 3], items[4 * i - 1] - 1, items[4 * i - 2]
        for j = 1, #set do
          local spec, e = set[j], ents[f + j]
          if snaps[e] == nil then snaps[e] = snapshot(e) end
          local allowed, remaining, reset, _, lease = spec.k.apply(e.s, now, spec, cost, true)
          if not allowed then
            ok = false
            break
          end
          e.w = next_warning(e.w, remaining, spec.burst)
          done[nd + 1] = remaining
          done[nd + 2] = reset
          done[nd + 3] = e.w
          done[nd + 4] = lease
          nd = nd + 4
        end
        if not ok then break end
      end
      if ok then
        for e in pairs(snaps) do e.exists, e.dirty, e.now, e.at = true, true, now, e.spec end
        for d = 1, nd, 4 do emit(true, done[d], done[d + 1], 0, done[d + 2], done[d + 3], true) end
      else
        for e, c in pairs(snaps) do restore(e, c) end
        for i = 1, nitems do
          local set, f, cost = items[4 * i - 3], items[4 * i - 1] - 1, items[4 * i - 2]
          local pass = true
          for j = 1, #set do
            local spec, e = set[j], ents[f + j]
            local k = spec.k
            local allowed, remaining, reset, retry = k.apply(e.s, now, spec, cost, false)
            if allowed then
              allowed, remaining, reset, retry = k.apply(e.s, now, spec, 0, false)
            else
              pass = false
            end
            emit(allowed, remaining, reset, retry, e.w, 0, false)
          end
          if pass and i < nitems then
            for j = 1, #set do
              local spec, e = set[j], ents[f + j]
              local c = snaps[e]
              if c == nil then
                snaps[e] = snapshot(e)
              elseif e.s == c[1] then
                -- A ring state put back above is its snapshot's table: step a copy, so that the restore below
                -- puts back the state as it was (only this path, a denied call of several items, copies twice).
                e.s = snapshot(e)[1]
              end
              spec.k.apply(e.s, now, spec, cost, true)
            end
          end
        end
        for e, c in pairs(snaps) do restore(e, c) end
      end
    end
  elseif op == RELEASE then
    nout = nout + 1
    out[nout] = 1
    for i = 1, nitems do
      local set, f, at = items[4 * i - 3], items[4 * i - 1] - 1, items[4 * i]
      for j = 1, #set do
        local spec, e = set[j], ents[f + j]
        local id = sunpack("<d", P, at + 8 * (j - 1))
        if id > 0 and e.exists and spec.k.release then
          spec.k.release(e.s, now, spec, id)
          e.exists, e.dirty, e.now, e.at = true, true, now, e.spec
        end
      end
    end
  elseif op == PEEK or op == REFUND or op == RESET then
    for i = 1, nitems do
      local set, f, cost = items[4 * i - 3], items[4 * i - 1] - 1, items[4 * i - 2]
      if op == REFUND then
        for j = 1, #set do
          local spec, e = set[j], ents[f + j]
          -- Only a stored state that is not idle has units to give back: a refund of an idle one (or of a key
          -- never written, such as one whose consumes were all denied) changes nothing, in every store.
          if e.exists and spec.k.refund and spec.k.idle(e.s, now, spec) > 0 then
            spec.k.refund(e.s, now, spec, cost)
            e.exists, e.dirty, e.now, e.at = true, true, now, e.spec
          end
        end
        cost = 0
      elseif op == RESET then
        for j = 1, #set do
          local spec, e = set[j], ents[f + j]
          -- A concurrency limit keeps its last lease id (kernel reset_keep): written back with no lease, else DEL.
          local keep = 0
          if e.exists and spec.k.reset_keep then keep = spec.k.reset_keep(e.s) end
          clear(e, spec)
          if keep > 0 then
            e.s[1] = keep
            e.exists, e.now, e.at = true, now, spec
          end
          e.dirty = true -- deleted at the end unless written again
        end
        cost = 0
      end
      -- Report as a peek for `cost`: writes nothing.
      for j = 1, #set do
        local spec, e = set[j], ents[f + j]
        local k = spec.k
        local allowed, remaining, reset, retry = k.apply(e.s, now, spec, cost, false)
        local previous = e.w and k.idle(e.s, now, spec) > 0
        emit(allowed, remaining, reset, retry, allowed and next_warning(previous, remaining, spec.burst), 0, true)
      end
    end
  elseif op ~= REPLAYED then
    return redis.error_reply("ERR sluice: unknown op " .. tostring(op))
  end
  if mark then
    -- Record this group's statuses (admitted or denied) for the retries to come.
    local n = nout - mark - 1
    out[mark] = n
    local parts = {}
    for i = 1, n do parts[i] = format("%d", out[mark + 1 + i]) end
    local ttl = ottl
    if not (ttl >= 1) then
      ttl = 1
    elseif ttl > MAX_TTL_MS then
      ttl = MAX_TTL_MS
    end
    if onces[okey] == nil then nonces = nonces + 1 end
    onces[okey] = { format("%.17g", oat) .. ";" .. table.concat(parts, ","), format("%d", ttl) }
  end
end

-- Write back every changed state once: PSETEX with its idle time plus the margin, or DEL after a reset.
for key, e in pairs(cache) do
  if e.dirty then
    if e.exists then
      local spec, s = e.spec, e.s
      local flags = spec.code * 2
      if e.w then flags = flags + 1 end
      local v
      if spec.ring then
        v = ring().encode(s, flags)
      elseif spec.width == 1 then
        v = spack("<Bd", flags, s[0])
      elseif spec.width == 2 then
        v = spack("<Bdd", flags, s[0], s[1])
      else
        v = spack("<Bddd", flags, s[0], s[1], s[2])
      end
      local at = e.at -- the TTL is the idle time as of the last change, under the limit it was made with
      call("PSETEX", key, px_of(at.k.idle(s, e.now, at)), v)
    else
      call("DEL", key)
    end
  end
end
if nonces > 0 then
  for key, rec in pairs(onces) do
    call("PSETEX", key, rec[2], rec[1])
  end
end

return reply()
