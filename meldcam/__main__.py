from meldcam.cli import main

raise SystemExit(main())
