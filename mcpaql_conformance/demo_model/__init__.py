"""A scripted stand-in for a model, for trying `agent` with no network (see ``server``)."""
