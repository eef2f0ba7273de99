from mcpaql_conformance.cli import main

main()
