"""bench/load.py's parts, one job each (bench/load.py is only their command line).

- ``servers``: the processes under test: a redis-server, the server's instances
  from any checkout (``--root``, an A/B of a server change), their workers.
- ``phones``: a table's seats as WebSocket clients speaking the server's protocol
  as web/ does (snapshots, pings, reconnects, a draw answered with the phone's
  hash-chain link), and when an action has reached every phone of its table.
- ``tables``: real games made over HTTP, and the driver that sends actions drawn
  from the seats' offers on a fixed-rate schedule.
- ``figures``: the instruments (CPU per process and thread, the generator's own
  pauses, per-instance counts, percentiles).
- ``run``: one whole run in order, and the figures it reports.
"""
