"""One module per command, each with `execute(args, env) -> int`, imported on demand."""
