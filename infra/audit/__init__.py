"""The audit: anyone can check that a table, or a whole tournament, was played fairly.

One module per job:

``table``                  verifying a table's stored events: chain, replay, seeds, scores,
                           timeouts (`verify_events`, `verify_table`);
``report``                 what the table audit found (`Check`, `DealReport`, `TableReport`)
                           and its text (`summary`);
``deals``                  a table's log deal by deal: its end, its deals, one deal as text;
``export``                 the table export: one signed JSON document, read back and checked
                           offline (`export_session`, `verify_file`);
``disclosure``             what a table export shows of the log, and how its sealed seeds replay;
``strict``                 strict JSON: a checked file has one reading;
``witness``                chain heads published live, held against an export;
``tournament``             verifying a tournament: its stream and every table of every round;
``tournament_disclosure``  what a tournament export shows of its stream, and its replay;
``tournament_export``      the tournament export, and its audit offline.
"""
