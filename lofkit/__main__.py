from lofkit.cli import main

main()
