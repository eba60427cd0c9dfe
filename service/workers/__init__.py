"""The service's background work: bots, the turn clock, their supervisor."""
