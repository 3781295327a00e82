// Scoreboard: reload when a round or the game ends (or an event is undone), pushed by Server-Sent Events.
"use strict";
(function () {
  const board = document.getElementById("scoreboard");
  const source = new EventSource("/api/games/" + board.dataset.game + "/stream");
  let roundOver = null;
  let gameOver = null;
  source.onmessage = (message) => {
    const data = JSON.parse(message.data);
    const state = (data.kind === "snapshot" ? data.state : data.snapshot.state) || {};
    const changed = (roundOver !== null && roundOver !== !!state.round_over) || (gameOver !== null && gameOver !== !!state.game_over);
    roundOver = !!state.round_over;
    gameOver = !!state.game_over;
    if (changed || data.kind === "reset") window.location.reload();
  };
})();
