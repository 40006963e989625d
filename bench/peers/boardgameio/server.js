// The boardgame.io peer's server: one process, in-memory storage, socket.io transport
// and the Lobby API on the same port. Usage: node server.js <port>
'use strict';

const { Server } = require('boardgame.io/server');
const { TablemateShape } = require('./game');

const port = Number(process.argv[2] || 8100);
const server = Server({
  games: [TablemateShape],
  origins: [/^https?:\/\/127\.0\.0\.1(:\d+)?$/],
});

server.run({ port, callback: () => console.log(`ready ${port}`) });

// Exit cleanly on the load generator's SIGTERM (no half-written output).
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
