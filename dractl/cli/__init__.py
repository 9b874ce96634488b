"""The `dractl` command line."""

# Set by the console script (dractl.cli.entry): this process exits when the command is done, so
# what it loads may be kept out of the cyclic GC's sight (dractl.pipeline.executor reads it).
SHORT_LIVED = False
