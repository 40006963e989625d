// The boardgame.io peer's load generator: the workload of bench/load.py on boardgame.io.
//
//   node load.js --phones 1000 --rate 50 --duration 30 [--sizes 3:40,4:50,...] [--out f.json] [--liveness tablemate]
//
// It starts server.js (one process, in-memory) on a free loopback port, creates tables
// of 3-8 seats through the Lobby API (or exactly the table sizes given by --sizes, so
// that bench/compare.py can replay Tablemate's mix), connects every seat as its own
// socket.io connection (forceNew: no multiplexing of seats onto one socket) speaking
// boardgame.io's socket protocol ('sync', 'update'), then drives moves at --rate per
// second in total, at most one in flight per table. Latency is from emitting a move to
// the LAST seat of that table holding the new _stateID. It prints the same JSON fields
// as bench/load.py. Only loopback traffic.
'use strict';

const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { performance, PerformanceObserver } = require('node:perf_hooks');
const { io } = require('socket.io-client');
const { CAMELS } = require('./game');

const GAME = 'tablemate-shape';

function parseArgs(argv) {
  const args = {
    phones: 1000, rate: 50, duration: 30, seed: 1, sizes: null, out: null,
    actionTimeout: 10, tickerMs: 1, connectWave: 200, warmup: 2, liveness: 'default',
  };
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (!(key in args)) throw new Error(`unknown option ${argv[i]}`);
    const value = argv[++i];
    args[key] = ['sizes', 'out', 'liveness'].includes(key) ? value : Number(value);
  }
  return args;
}

// --liveness: boardgame.io's own socket.io pings (default), or pings at Tablemate's
// bound (tablemate): a ping every 3 s, answered within 2 s, so each side of a silent
// link notices within 5 s, as a Tablemate phone does (its server sends a frame at least
// every ~3 s and the phone gives up after 5 s of silence).
const LIVENESS = { default: {}, tablemate: { BGIO_PING_MS: '3000,2000' } };

function badLiveness(name) {
  throw new Error(`--liveness must be one of ${Object.keys(LIVENESS).join(', ')}, not ${name}`);
}

// mulberry32: a small seeded PRNG, so a run's choices repeat with the same --seed.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pct(sorted, q) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const round1 = (x) => (x == null ? null : Math.round(x * 10) / 10);

// Process CPU (all threads: the event loop, V8's GC helpers, libuv's pool) and RSS
// from /proc, the same source psutil reads for the Tablemate side.
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
function procCpuSeconds(pid, kernelOnly = false) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [Number(fields[11]), Number(fields[12])];
  return (kernelOnly ? stime : utime + stime) / CLK_TCK;
}
function procRssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

async function http(base, method, urlPath, body) {
  const res = await fetch(base + urlPath, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${urlPath}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function waitHttp(url, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${url}`);
}

async function pool(n, items, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}

function planSizes(args, random) {
  if (args.sizes) {
    const sizes = [];
    for (const part of args.sizes.split(',')) {
      const [seats, count] = part.split(':').map(Number);
      for (let i = 0; i < count; i += 1) sizes.push(seats);
    }
    // Interleave sizes so any prefix of the tables has the same mix.
    for (let i = sizes.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [sizes[i], sizes[j]] = [sizes[j], sizes[i]];
    }
    return sizes;
  }
  const sizes = [];
  let total = 0;
  while (total < args.phones) {
    const n = Math.min(3 + Math.floor(random() * 6), Math.max(3, args.phones - total));
    sizes.push(n);
    total += n;
  }
  return sizes;
}

class Stats {
  constructor() {
    this.latencies = [];
    this.errors = {};
    this.actions = 0;
    this.connected = 0;
    this.connectErrors = 0;
    this.reconnects = 0;
    this.stopping = false;
  }

  error(code) {
    this.errors[code] = (this.errors[code] || 0) + 1;
  }
}

function maybeFinish(table, stats) {
  if (table.busy && table.phones.every((p) => p.version >= table.want)) {
    stats.latencies.push(performance.now() - table.sentAt);
    stats.actions += 1;
    table.busy = false;
  }
}

function connectPhone(base, phone, stats) {
  const socket = io(`${base}/${GAME}`, {
    forceNew: true, // one socket per seat, like one phone per seat
    transports: ['websocket'],
    reconnectionDelay: 200,
    reconnectionDelayMax: 2000,
  });
  phone.socket = socket;
  let everConnected = false;
  let failures = 0;
  socket.on('connect', () => {
    // What the server's handshake set (engine.io-client 6.6 keeps it as _pingInterval).
    stats.pingIntervalMs = socket.io.engine._pingInterval;
    if (everConnected) stats.reconnects += 1;
    else {
      everConnected = true;
      stats.connected += 1;
    }
    socket.emit('sync', phone.table.matchID, phone.playerID, phone.credentials, phone.table.seats);
  });
  socket.on('connect_error', () => {
    failures += 1;
    if (!everConnected && failures === 5) {
      stats.connectErrors += 1;
      socket.close();
    }
  });
  socket.on('disconnect', (reason) => {
    if (!stats.stopping) stats.error(`disconnect_${reason.replace(/ /g, '_')}`);
  });
  const onState = (state) => {
    if (state._stateID <= phone.version) return;
    phone.version = state._stateID;
    phone.ctx = state.ctx;
    maybeFinish(phone.table, stats);
  };
  socket.on('sync', (matchID, syncInfo) => {
    phone.synced = true;
    onState(syncInfo.state);
  });
  socket.on('update', (matchID, state) => onState(state));
}

async function drive(tables, args, stats, random) {
  const tick = 1000 / args.rate;
  const start = performance.now();
  const inFlight = new Set();
  let next = start;
  let sent = 0;
  let skipped = 0;
  let maxLate = 0;
  let lastSweep = start;
  while (performance.now() - start < args.duration * 1000) {
    let now = performance.now();
    if (now < next) {
      await sleep(next - now);
      now = performance.now();
    }
    const late = now - next;
    maxLate = Math.max(maxLate, late);
    // A stalled generator does not fire the missed slots back to back (that would
    // put a burst on the server that the schedule never asked for): it drops them
    // and counts them.
    if (late >= tick) {
      const missed = Math.floor(late / tick);
      skipped += missed;
      next += missed * tick;
    }
    next += tick;
    if (now - lastSweep > 500) {
      lastSweep = now;
      for (const t of inFlight) {
        if (!t.busy) inFlight.delete(t);
        else if (now - t.sentAt > args.actionTimeout * 1000) {
          stats.error('action_timeout');
          t.busy = false;
          inFlight.delete(t);
        }
      }
    }
    for (let tries = 0; tries < 50; tries += 1) {
      const table = tables[Math.floor(random() * tables.length)];
      if (table.busy) continue;
      const seat = table.phones[0].ctx && table.phones[0].ctx.currentPlayer;
      const mover = table.phones.find((p) => p.playerID === seat);
      if (!mover) continue;
      if (!mover.socket.connected) {
        stats.error('send_failed');
        break;
      }
      const stateID = mover.version;
      const move = random() < 0.5
        ? { type: 'rollDie', args: [] }
        : { type: 'bet', args: [CAMELS[Math.floor(random() * CAMELS.length)], 1 + Math.floor(random() * 3)] };
      table.busy = true;
      table.want = stateID + 1; // maxMoves 1: every move ends the turn, one _stateID step
      table.sentAt = performance.now();
      inFlight.add(table);
      mover.socket.emit('update', {
        type: 'MAKE_MOVE',
        payload: { ...move, playerID: mover.playerID, credentials: mover.credentials },
      }, stateID, table.matchID, mover.playerID);
      sent += 1;
      break;
    }
  }
  const driven = (performance.now() - start) / 1000;
  const deadline = performance.now() + 5000;
  while (tables.some((t) => t.busy) && performance.now() < deadline) await sleep(50);
  const unfinished = tables.filter((t) => t.busy).length;
  if (unfinished) stats.errors.unfinished = unfinished;
  return { driven, sent, skipped, maxLate };
}

// A 1 ms ticker: its worst lateness is the longest time this generator's event loop
// could not look at a socket (GC, a burst of parsing), which it would add to latency.
// V8's collector cannot be switched off like CPython's; its pauses are reported instead,
// so a long ticker pause can be told apart from the OS giving the core to someone else.
function startTicker(periodMs) {
  const state = { maxPauseMs: 0, maxPauseAtS: null, ticks: 0, over5: 0, gcMaxMs: 0, gcCount: 0 };
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      state.gcCount += 1;
      if (entry.duration > state.gcMaxMs) state.gcMaxMs = entry.duration;
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const start = performance.now();
  let last = start;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - periodMs;
    if (late > state.maxPauseMs) {
      state.maxPauseMs = late;
      state.maxPauseAtS = (now - start) / 1000;
    }
    if (late > 5) state.over5 += 1;
    state.ticks += 1;
    last = now;
  }, periodMs);
  return { state, stop: () => { clearInterval(timer); gcObserver.disconnect(); } };
}

async function run(args) {
  const random = rng(args.seed);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logPath = path.join(os.tmpdir(), `tablemate-bench-bgio-${port}.log`);
  const logFd = fs.openSync(logPath, 'w');
  const server = spawn(process.execPath, [path.join(__dirname, 'server.js'), String(port)], {
    // production: boardgame.io's own setting for a deployed server (no per-move info logs)
    env: { ...process.env, NODE_ENV: 'production', ...(LIVENESS[args.liveness] ?? badLiveness(args.liveness)) },
    stdio: ['ignore', logFd, logFd],
  });
  try {
    await waitHttp(`${base}/games`);
    const sizes = planSizes(args, random);
    const t0 = performance.now();
    const tables = await pool(16, sizes, async (seats) => {
      const { matchID } = await http(base, 'POST', `/games/${GAME}/create`, { numPlayers: seats });
      const table = { matchID, seats, phones: [], busy: false, want: 0, sentAt: 0 };
      for (let k = 0; k < seats; k += 1) {
        const joined = await http(base, 'POST', `/games/${GAME}/${matchID}/join`,
          { playerID: String(k), playerName: `P${k + 1}` });
        table.phones.push({ table, playerID: String(k), credentials: joined.playerCredentials,
          version: -1, ctx: null, synced: false, socket: null });
      }
      return table;
    });
    const setupS = (performance.now() - t0) / 1000;
    const rssIdle = procRssMb(server.pid);
    const stats = new Stats();
    const phones = tables.flatMap((t) => t.phones);
    const t1 = performance.now();
    for (let i = 0; i < phones.length; i += args.connectWave) {
      for (const p of phones.slice(i, i + args.connectWave)) connectPhone(base, p, stats);
      await sleep(50);
    }
    const deadline = performance.now() + 120000;
    while (stats.connected + stats.connectErrors < phones.length && performance.now() < deadline) await sleep(100);
    const connectS = (performance.now() - t1) / 1000;
    while (phones.some((p) => p.socket.connected && !p.synced) && performance.now() < deadline) await sleep(100);
    // Let the connect storm's matchData broadcasts drain before measuring.
    await sleep(500);
    if (args.warmup > 0) {
      // As bench/load.py: actions at the same rate first, not measured (errors still counted).
      await drive(tables, { ...args, duration: args.warmup }, stats, random);
      stats.latencies.length = 0;
      stats.actions = 0;
    }

    const ticker = startTicker(args.tickerMs);
    const cpu0 = procCpuSeconds(server.pid);
    const sys0 = procCpuSeconds(server.pid, true);
    const me0 = process.cpuUsage();
    const drove = await drive(tables, args, stats, random);
    const cpu1 = procCpuSeconds(server.pid);
    const sys1 = procCpuSeconds(server.pid, true);
    const me1 = process.cpuUsage(me0);
    ticker.stop();
    const rss = procRssMb(server.pid);
    stats.stopping = true;
    const silent = phones.filter((p) => p.socket.connected && !p.synced).length;
    if (silent) stats.errors.never_got_state = silent;
    for (const p of phones) p.socket.close();
    const logText = fs.readFileSync(logPath, 'utf8');
    const serverErrors = (logText.match(/ERROR/g) || []).length;
    if (serverErrors) stats.errors.server_log_errors = serverErrors;

    const lat = stats.latencies.slice().sort((a, b) => a - b);
    const cpuS = cpu1 - cpu0;
    const histogram = {};
    for (const t of tables) histogram[t.seats] = (histogram[t.seats] || 0) + 1;
    return {
      peer: 'boardgame.io',
      version: require('boardgame.io/package.json').version,
      node: process.version,
      liveness: args.liveness,
      ping_interval_ms: stats.pingIntervalMs ?? null,
      phones: phones.length,
      tables: tables.length,
      table_sizes: histogram,
      phones_connected: stats.connected,
      connect_errors: stats.connectErrors,
      reconnects: stats.reconnects,
      setup_s: round1(setupS),
      connect_s: round1(connectS),
      warmup_s: args.warmup,
      target_rate: args.rate,
      actions: stats.actions,
      sent: drove.sent,
      actions_per_s: round1(stats.actions / drove.driven),
      latency_ms: {
        p50: round1(pct(lat, 0.5)), p95: round1(pct(lat, 0.95)), p99: round1(pct(lat, 0.99)),
        max: round1(lat.length ? lat[lat.length - 1] : null),
        mean: round1(lat.length ? lat.reduce((a, b) => a + b, 0) / lat.length : null),
      },
      errors: stats.errors,
      server_cpu_percent: [Math.round((cpuS / drove.driven) * 100)],
      server_cpu_ms_per_action: stats.actions ? Math.round((cpuS * 1000 / stats.actions) * 100) / 100 : null,
      server_kernel_ms_per_action: stats.actions ? Math.round(((sys1 - sys0) * 1000 / stats.actions) * 100) / 100 : null,
      server_rss_mb: [Math.round(rss)],
      server_rss_idle_mb: Math.round(rssIdle),
      rss_per_phone_kb: stats.connected ? Math.round(((rss - rssIdle) * 1024) / stats.connected) : null,
      loadgen_cpu_percent: Math.round(((me1.user + me1.system) / 1e6 / drove.driven) * 100),
      loadgen_max_pause_ms: round1(ticker.state.maxPauseMs),
      loadgen_max_pause_at_s: round1(ticker.state.maxPauseAtS),
      loadgen_pauses_over_5ms: ticker.state.over5,
      loadgen_gc_collections: ticker.state.gcCount,
      loadgen_gc_max_pause_ms: round1(ticker.state.gcMaxMs),
      schedule_max_late_ms: round1(drove.maxLate),
      schedule_skipped: drove.skipped,
    };
  } finally {
    server.kill('SIGTERM');
    fs.closeSync(logFd);
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const result = await run(args);
  const text = JSON.stringify(result, null, 2);
  if (args.out) fs.writeFileSync(args.out, text);
  console.log(text);
  // Closed sockets' timers must not keep the process alive.
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
