#!/usr/bin/env python3
"""How much echo a frequency-domain Kalman filter of a given structure takes off, on a run's taps.

    scripts/linear-stage-structures.py EVAL_OUT ITEM [M:H:P ...]

EVAL_OUT/ITEM is an item of `echolab eval ... --out EVAL_OUT` run WITH taps on a simulated
scenario (its echo tap is the true echo at the mic). Each M:H:P is a structure: partitions of M
taps, a new frame every H samples (M a multiple of H: H < M is a partitioned filter with overlap),
P partitions. Default: 480:480:26 (EchoLab's canceller at 48 kHz: 10 ms partitions and frames,
260 ms), 480:240:26, 960:480:13 and 1920:480:7 (about the same tail).

Each runs a textbook diagonal frequency-domain Kalman filter (the state-space PBFDAF: per bin
and partition an uncertainty, a step of uncertainty over expected plus unexplained error power,
drift 2e-4, every partition's gradient constrained each frame) on the reference moved by the
echo's bulk delay (found from the echo tap) less 2 ms, against the mic, and prints the linear
stage's ERLE — the true echo over the true residual (echo − estimate) — per second, and over the
frames where a near talker is active (double talk) and where he is not, after the first 3 s.
No suppressor, no coarse filter, no delay estimator: the structures are compared, not EchoLab's
canceller (which also has all three).

Why: the double-talk targets of the AECMOS score ask for the residual under a talker to be
some 40 dB under the echo (scripts/aecmos-ceiling.py); this shows what the linear stage's
structure can give towards it, and at what cost in transforms (docs/canceller.md).
Needs numpy and soundfile (.build/dev-venv/bin/python3 or the scorers' venv).
"""
import os
import sys

import numpy as np
import soundfile as sf

FRAME = 960            # 20 ms at 48 kHz, for the activity of the near end
ACTIVE_DBFS = -50.0
DRIFT = 2e-4


def bulk_delay(reference, echo):
    n = 1 << int(np.ceil(np.log2(2 * len(reference))))
    correlation = np.fft.irfft(np.fft.rfft(echo, n) * np.conj(np.fft.rfft(reference, n)), n)[:len(reference) // 2]
    return int(np.argmax(np.abs(correlation)))


def linear_estimate(x, d, m, h, partitions):
    """The filter's echo estimate, a frame of h samples at a time (overlap-save, 2m-point FFTs)."""
    bins, step, share = m + 1, m // h, h / (2 * m)   # share: the error block's part of the 2m block
    weights = np.zeros((partitions, bins), complex)
    prior = np.exp(-np.arange(partitions) * step / 6.0)[:, None] * np.ones((partitions, bins))
    uncertainty = prior.copy()
    history = [np.zeros(bins, complex)] * (partitions * step)
    block = np.zeros(2 * m)
    unexplained = np.zeros(bins)
    estimate = np.zeros(len(x) // h * h)
    for t in range(0, len(estimate), h):
        block = np.concatenate([block[h:], x[t:t + h]])
        history = [np.fft.rfft(block)] + history[:-1]
        spectra = np.array(history[::step])
        power = np.abs(spectra) ** 2
        y = np.fft.irfft(np.sum(spectra * weights, axis=0), 2 * m)[-h:]
        estimate[t:t + h] = y
        error = np.fft.rfft(np.concatenate([np.zeros(2 * m - h), d[t:t + h] - y]))
        expected = np.sum(uncertainty * power, axis=0)
        now = np.maximum(np.abs(error) ** 2 - share * expected, 0)
        unexplained = np.maximum(now, 0.9 * unexplained + 0.1 * now)
        gain = uncertainty / (share * expected + 2 * unexplained + 1e-10) * 2 * share
        weights += gain * np.conj(spectra) * error
        taps = np.fft.irfft(weights, 2 * m, axis=1)
        taps[:, m:] = 0
        weights = np.fft.rfft(taps, axis=1)
        learned = np.maximum(1 - share * gain * power, 0)
        uncertainty = np.minimum((1 - DRIFT) * learned * uncertainty + DRIFT * np.abs(weights) ** 2 + 1e-9, prior)
    return estimate


def erle(echo, residual):
    return 10 * np.log10(np.sum(echo ** 2) / max(np.sum(residual ** 2), 1e-30))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    folder = os.path.join(sys.argv[1], sys.argv[2])
    structures = sys.argv[3:] or ["480:480:26", "480:240:26", "960:480:13", "1920:480:7"]
    modes = sorted(m for m in os.listdir(folder) if os.path.exists(os.path.join(folder, m, "echo.wav")))
    if not modes:
        sys.exit(f"{folder}: no run with taps (run eval without --no-taps)")
    tap = lambda name: sf.read(os.path.join(folder, modes[0], f"{name}.wav"), dtype="float64")
    (reference, rate), (echo, _), (mic, _) = tap("reference"), tap("echo"), tap("mic")
    if rate != 48000:
        sys.exit(f"{folder}: the taps are at {rate} Hz; the structures are sized for 48 kHz")
    lead = max(0, bulk_delay(reference, echo) - rate // 500)
    x = np.concatenate([np.zeros(lead), reference])[:len(reference)]
    usable = len(mic) // FRAME * FRAME
    talker = 10 * np.log10(np.mean((mic - echo)[:usable].reshape(-1, FRAME) ** 2, axis=1) + 1e-20) > ACTIVE_DBFS
    print(f"{sys.argv[2]}: bulk delay {lead / rate * 1000:.1f} ms taken out; linear ERLE (dB), the true echo over the true residual\n")
    seconds = int(usable / rate)
    print("| M:H:P | " + " | ".join(f"{s}–{s + 1} s" for s in range(seconds)) + " | double talk after 3 s | single talk after 3 s |")
    print("|---" * (seconds + 3) + "|")
    for structure in structures:
        m, h, partitions = (int(v) for v in structure.split(":"))
        if m % h:
            sys.exit(f"{structure}: M must be a multiple of H")
        residual = echo[:usable] - linear_estimate(x, mic, m, h, partitions)[:usable]
        cells = [erle(echo[s * rate:(s + 1) * rate], residual[s * rate:(s + 1) * rate]) for s in range(seconds)]
        frames = np.arange(usable // FRAME) >= 3 * rate // FRAME
        pick = lambda mask: np.repeat(mask, FRAME)
        both = erle(echo[:usable][pick(frames & talker)], residual[pick(frames & talker)]) if np.any(frames & talker) else float("nan")
        alone = erle(echo[:usable][pick(frames & ~talker)], residual[pick(frames & ~talker)]) if np.any(frames & ~talker) else float("nan")
        print(f"| {structure} | " + " | ".join(f"{c:.1f}" for c in cells) + f" | {both:.1f} | {alone:.1f} |", flush=True)


if __name__ == "__main__":
    main()
