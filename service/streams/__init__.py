"""Live streams (Server-Sent Events): the hub that wakes them, the table streams and the
feed, and a tournament's stream."""
