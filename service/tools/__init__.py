"""Tools around the service: the command line, the demo, the match, the Python client."""
