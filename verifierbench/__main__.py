import sys

from verifierbench.cli.main import main

sys.exit(main())
