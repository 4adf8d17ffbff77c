"""The sessions in other tools' formats: ``study export inspect`` writes Inspect eval logs.
Layer 10: may import the foundations and layers 1-9 (docs/architecture.md).

Reading only: sessions are read, validated and scored as ``study score`` does, never run."""
