// A boardgame.io game of the same shape as a Tablemate table: 3-8 seats, a dice
// move and a bet move, and one secret per seat that playerView hides from the others.
// The race wraps around the track, so a game never ends during a benchmark run
// (boardgame.io drops moves after gameover, which would stall a table).
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const CAMELS = ['blue', 'green', 'orange', 'yellow', 'white'];
const TRACK = 16;
const BETS_KEPT = 8; // a bounded history keeps the state (and each update) the same size all run

const TablemateShape = {
  name: 'tablemate-shape',
  minPlayers: 3,
  maxPlayers: 8,

  setup: ({ ctx, random }) => {
    const secrets = {};
    const coins = {};
    for (const id of ctx.playOrder) {
      secrets[id] = random.Shuffle(CAMELS)[0]; // e.g. a secret finish card
      coins[id] = 3;
    }
    const positions = {};
    for (const camel of CAMELS) positions[camel] = random.Die(3) - 1;
    return { positions, secrets, coins, bets: [], lastRoll: null, rolls: 0 };
  },

  turn: { minMoves: 1, maxMoves: 1 },

  moves: {
    rollDie: ({ G, random, playerID }) => {
      const camel = CAMELS[random.Die(CAMELS.length) - 1];
      const value = random.Die(3);
      G.positions[camel] = (G.positions[camel] + value) % TRACK;
      G.lastRoll = { camel, value, by: playerID };
      G.rolls += 1;
      G.coins[playerID] += 1;
    },
    bet: ({ G, playerID }, camel, amount) => {
      if (!CAMELS.includes(camel) || !Number.isInteger(amount) || amount < 1 || amount > 3) {
        return INVALID_MOVE;
      }
      G.bets.push({ by: playerID, camel, amount });
      if (G.bets.length > BETS_KEPT) G.bets.shift();
    },
  },

  // Whitelist: each seat sees its own secret only (spectators see none).
  playerView: ({ G, playerID }) => ({
    positions: G.positions,
    coins: G.coins,
    bets: G.bets,
    lastRoll: G.lastRoll,
    rolls: G.rolls,
    secret: playerID != null ? G.secrets[playerID] ?? null : null,
  }),
};

module.exports = { TablemateShape, CAMELS };
