"""mcpaql-conformance: decide whether an MCP-AQL server conforms, and prove it."""

__version__ = "0.1.0"
TOOL_NAME = "mcpaql-conformance"  # what our reports say made them (`tool`)
SPEC_VERSION = "1.0.0-draft"
VERSION_LINE = f"{TOOL_NAME} {__version__} (MCP-AQL spec {SPEC_VERSION})"  # what `version` prints
