"""mcpaql-conformance: decide whether an MCP-AQL server conforms, and prove it."""

__version__ = "0.1.0"
SPEC_VERSION = "1.0.0-draft"
VERSION_LINE = f"mcpaql-conformance {__version__} (MCP-AQL spec {SPEC_VERSION})"  # what `version` prints
