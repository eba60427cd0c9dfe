"""Request and response bodies of the REST API (msgspec Structs, validated at the edge): the
tables' and the tournaments'."""
