// The boardgame.io peer's server: one process, in-memory storage, socket.io transport
// and the Lobby API on the same port. Usage: node server.js <port>
'use strict';

const { Server, SocketIO } = require('boardgame.io/server');
const { TablemateShape } = require('./game');

const port = Number(process.argv[2] || 8100);
// BGIO_PING_MS="interval,timeout": socket.io's own liveness (boardgame.io's default is
// 10 s and 20 s, a dead link noticed within ~30 s); load.js --liveness sets it.
const ping = (process.env.BGIO_PING_MS || '').split(',').filter(Boolean).map(Number);
const server = Server({
  games: [TablemateShape],
  origins: [/^https?:\/\/127\.0\.0\.1(:\d+)?$/],
  ...(ping.length === 2 ? { transport: new SocketIO({ socketOpts: { pingInterval: ping[0], pingTimeout: ping[1] } }) } : {}),
});

server.run({ port, callback: () => console.log(`ready ${port}`) });

// Exit cleanly on the load generator's SIGTERM (no half-written output).
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
