"""A conformance registry built from saved reports: one page for many servers."""
