"""``python -m fabula``; guarded so worker processes (forkserver/spawn) can import it without running the CLI."""

from fabula.cli import main

if __name__ == "__main__":
    main()
