#!/usr/bin/env python3
"""How much residual echo AECMOS tolerates in double talk, and what a perfect canceller scores.

    scripts/aecmos-ceiling.py EVAL_OUT ITEM

EVAL_OUT is the --out of `echolab eval SCENARIO --modes ... --out EVAL_OUT` run WITH taps, on a
simulated scenario (its echo tap is the true echo at the mic). The double-talk stretch is where
both the echo and the rest of the mic (near end and noise: mic − echo) are active, first to last
20 ms frame, as one stretch, the way the scorer is handed it. Printed, AECMOS (48 kHz model,
talk type "dt") of: the mic; the echo-free mic, which is what a perfect canceller sends; the
echo-free mic with the true echo added back at −20 … −40 dB, which shows how far under the
echo the residual must be for a score; and each mode's sent tap.

Why: the score's double-talk targets are judged against this ceiling (docs/canceller.md).
Needs the scorer's packages: run with .build/scorers/bin/python3 (`make scorers` makes it).
"""
import os
import sys

import numpy as np
import soundfile as sf
from speechmos import aecmos

FRAME = 960            # 20 ms at 48 kHz
ACTIVE_DBFS = -50.0


def active(x):
    n = len(x) // FRAME * FRAME
    return 10 * np.log10(np.mean(x[:n].reshape(-1, FRAME) ** 2, axis=1) + 1e-20) > ACTIVE_DBFS


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, item = sys.argv[1:]
    folder = os.path.join(out, item)
    modes = sorted(m for m in os.listdir(folder) if os.path.exists(os.path.join(folder, m, "sent.wav")))
    if not modes:
        sys.exit(f"{folder}: no run with taps (run eval without --no-taps)")
    tap = lambda mode, name: sf.read(os.path.join(folder, mode, f"{name}.wav"), dtype="float32")[0]
    reference, mic, echo = tap(modes[0], "reference"), tap(modes[0], "mic"), tap(modes[0], "echo")
    rest = mic - echo
    both = np.flatnonzero(active(echo) & active(rest))
    if len(both) == 0:
        sys.exit(f"{folder}: no double talk")
    lo, hi = both[0] * FRAME, (both[-1] + 1) * FRAME
    model = aecmos.AECMOS("aecmos_48kHz")

    def row(name, sent):
        e, o = model._get_mos("dt", reference[lo:hi], mic[lo:hi], sent[lo:hi])
        print(f"| {name} | {e:.2f} | {o:.2f} |")

    print(f"AECMOS in double talk, {item} ({lo / 48000:.1f}–{hi / 48000:.1f} s)\n")
    print("| sent | echo | other |\n|---|---|---|")
    row("the mic", mic)
    row("the echo-free mic (a perfect canceller)", rest)
    for db in (-20, -25, -30, -35, -40):
        row(f"the echo-free mic + the echo at {db} dB", rest + np.float32(10 ** (db / 20)) * echo)
    for mode in modes:
        row(f"`{mode}`", tap(mode, "sent"))


if __name__ == "__main__":
    main()
