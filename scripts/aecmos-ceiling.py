#!/usr/bin/env python3
"""How much residual echo AECMOS tolerates in double talk, and what a perfect canceller scores.

    scripts/aecmos-ceiling.py EVAL_OUT ITEM

EVAL_OUT is the --out of `echolab eval SCENARIO --modes ... --out EVAL_OUT` run WITH taps, on a
simulated scenario (its echo tap is the true echo at the mic). The double-talk stretch is where
both the echo and the rest of the mic (near end and noise: mic − echo) are active, first to last
20 ms frame, as one stretch, the way the scorer is handed it. Printed, AECMOS (48 kHz model,
talk type "dt") of: the mic; the echo-free mic, which is what a perfect canceller sends; the
echo-free mic with the true echo added back at −20 … −40 dB, which shows how far under the
echo the residual must be for a score; each mode's sent tap, its latency taken out as eval does
for the scorer (the lag within 0–50 ms where the sent tap best matches the echo-free mic); and,
per mode, an oracle suppressor on that sent tap: a Wiener gain per STFT bin (20 ms
Hann frames, 50 % overlap) computed from the TRUE near end and residual echo (sent − echo-free
mic), floored at −10 and −20 dB. No real suppressor knows either; the oracle bounds what any
suppressor after that linear stage can score.

Why: the score's double-talk targets are judged against this ceiling (docs/canceller.md).
Needs the scorer's packages: run with .build/scorers/bin/python3 (`make scorers` makes it).
"""
import os
import sys

import numpy as np
import soundfile as sf
from scipy.signal import istft, stft
from speechmos import aecmos

FRAME = 960            # 20 ms at 48 kHz
ACTIVE_DBFS = -50.0


def lag(sent, rest, lo, hi):
    """The latency, in samples within 0–50 ms, at which `sent` best matches the echo-free mic."""
    return max(range(0, 2400, 24), key=lambda d: float(np.dot(sent[lo + d:hi + d], rest[lo:hi])))


def oracle(sent, rest, floor_db):
    """`sent` with each STFT bin weighed by the Wiener gain the true near end and residual give."""
    _, _, s = stft(sent, nperseg=960, noverlap=480)
    _, _, n = stft(rest, nperseg=960, noverlap=480)
    near, residual = np.abs(n) ** 2, np.abs(s - n) ** 2
    gain = np.maximum(near / (near + residual + 1e-20), 10 ** (floor_db / 20))
    return istft(s * gain, nperseg=960, noverlap=480)[1][:len(sent)].astype(np.float32)


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
        sent = tap(mode, "sent")
        shift = lag(sent, rest, lo, hi - 2400)
        sent = np.concatenate([sent[shift:], np.zeros(shift, np.float32)])
        row(f"`{mode}` (latency {shift / 48:.1f} ms taken out)", sent)
        for floor_db in (-10, -20):
            row(f"`{mode}` after an oracle suppressor (floor {floor_db} dB)", oracle(sent, rest, floor_db))


if __name__ == "__main__":
    main()
