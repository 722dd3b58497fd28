"""Command-line tools; installed as the package ``trap_scripts`` (see setup.cfg)."""
