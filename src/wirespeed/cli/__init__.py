"""The command line: parse, call the library, render. Exit statuses live in exit.py."""
