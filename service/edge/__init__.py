"""The service's edge: HTTP and its limits, parsing, authorization (of tables and of
tournaments), which tables are public, the shared deals' secrecy (E5.3), signing what a route
answers, problems, logs."""
