"""Everything that talks to an untrusted live server: the process and its warden, the connection
over stdio or HTTP, records and redaction, the destructive guard, the session, discovery, signals.
Its clients are `capture` and `agent`, side by side above it."""
