"""python -m mcpaql_conformance.demo_model [--port PORT] [--latency-ms N]"""

from mcpaql_conformance.demo_model.server import main

main()
