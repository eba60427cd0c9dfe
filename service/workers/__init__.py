"""The service's background work: bots, the turn clock, the database watch, their
supervisor."""
