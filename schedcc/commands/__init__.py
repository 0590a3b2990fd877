"""One module per CLI command: DESCRIPTION, HELP, add_arguments(parser), run(args) -> int."""
