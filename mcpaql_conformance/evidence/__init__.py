"""Reading what a server said: the bundle, the answer classifier, the lenient reading of
introspection, samples, the index every check shares, and `validate`."""
