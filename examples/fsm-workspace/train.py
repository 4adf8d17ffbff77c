"""A stand-in for a training script: reads the learning rate from config.py, writes result.txt
(or the file named by --out) and prints it."""

import sys

from config import LEARNING_RATE

out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "result.txt"
with open(out, "w", encoding="utf-8") as fh:
    fh.write(f"learning rate {LEARNING_RATE}: loss {1 / (1 + 100 * LEARNING_RATE):.4f}\n")
print(open(out, encoding="utf-8").read().strip())
