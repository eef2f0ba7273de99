"""JSON files and values, below everything else: the one JSON loader and atomic writer, what kind
a file is, hand-written configuration files, the published schemas, JSON value helpers and the
depth and width limits of what is kept."""
