"""The ``meldcam`` command: subcommands come from scorer, vision and webapp."""
