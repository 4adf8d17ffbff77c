"""The sessions in other tools' formats: ``study export inspect`` writes Inspect eval logs.
Reading only: sessions are read, validated and scored as ``study score`` does, never run."""
