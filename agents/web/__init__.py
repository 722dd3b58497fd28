"""The web page of ``trap-serve``: play against an agent, watch two, replay a recorded game,
follow a tournament's standings, for every game of :mod:`trap_env.games`.

:mod:`agents.web.app` is the server (Starlette; the ``web`` extra) and its safety checks,
:mod:`agents.web.live` the games being played, :mod:`agents.web.seats` their seats (an
agent in a worker process, or the person at the page), :mod:`agents.web.views` what the
page draws, as JSON. The page itself is plain HTML, CSS and JavaScript in ``static/``
(``boards.js`` draws each game's board from its ``describe``), served by the package.
"""
