"""The service's edge: HTTP and its limits, parsing, authorization, problems, logs."""
