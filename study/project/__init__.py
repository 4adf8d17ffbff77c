"""A researcher's own study project: ``study new --task T DIR`` makes one, ready to be frozen."""
