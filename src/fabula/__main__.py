from fabula.cli import main

main()
